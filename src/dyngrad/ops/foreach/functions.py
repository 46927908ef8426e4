"""`torch._foreach_*`: each derived from the per-element op it applies to every tensor of a
list, with PyTorch's overloads (a Scalar, a list of Scalars, a TensorList, a Tensor) and
node names (`ForeachAddBackward0List`). See Note [Foreach nodes]."""

from __future__ import annotations

import math

from ..._tensor import Tensor
from ..elementwise.compare import MAXIMUM, MINIMUM
from ..elementwise.scalar_ops import ADD_SCALAR, DIV_SCALAR, MUL_SCALAR, SUB_SCALAR
from ..reduction.norms import vector_norm
from ..table.surface import public
from . import refused
from .arguments import (
    Column,
    same_length,
    tensor_list,
)
from .run import method, run, run_inplace

__all__ = ["BINARY", "PAIR_ROWS", "SCALAR_ROWS", "camel", "node_name", "publish", "self_column"]

UNARY = (
    "abs acos asin atan ceil cos cosh erf erfc exp expm1 floor frac lgamma log log10 log1p log2 "
    "neg reciprocal round rsqrt sigmoid sign sin sinh sqrt tan tanh trunc"
).split()

# each overload PyTorch has (Scalar, ScalarList, List: a TensorList, Tensor: one 0-dim tensor
# for every element) and the end of its node's name: `ForeachAddBackward` + "0List"
BINARY = {
    "add": {"Scalar": "1Scalar", "ScalarList": "1ScalarList", "List": "0List", "Tensor": "0Tensor"},
    "sub": {"Scalar": "1Scalar", "ScalarList": "1ScalarList", "List": "0List"},
    "mul": {"Scalar": "1Scalar", "ScalarList": "1ScalarList", "List": "0List", "Tensor": "0Tensor"},
    "div": {"Scalar": "1Scalar", "ScalarList": "1ScalarList", "List": "0", "Tensor": "0Tensor"},
    "clamp_min": {"Scalar": "0Scalar", "ScalarList": "0ScalarList", "List": "1List"},
    "clamp_max": {"Scalar": "0Scalar", "ScalarList": "0ScalarList", "List": "1List"},
    "maximum": {"Scalar": "0", "ScalarList": "1", "List": "0List"},
    "minimum": {"Scalar": "0", "ScalarList": "1", "List": "0List"},
    "pow": {"Scalar": "0Scalar", "ScalarList": "1", "List": "0"},
}
# in place with a number: ATen's (Tensor, Scalar) ops, whose nodes PyTorch's foreach records
SCALAR_ROWS = {"add": ADD_SCALAR, "sub": SUB_SCALAR, "mul": MUL_SCALAR, "div": DIV_SCALAR}
PAIR_ROWS = {"maximum": MAXIMUM, "minimum": MINIMUM}  # no Tensor.maximum_ to call


def camel(name: str) -> str:
    """PyTorch's node spelling of an op name: `log1p` -> `Log1P`, `clamp_min` -> `ClampMin`."""
    out = []
    for part in name.split("_"):
        chars = list(part.capitalize())
        for i in range(1, len(chars)):
            if chars[i - 1].isdigit():
                chars[i] = chars[i].upper()
        out.append("".join(chars))
    return "".join(out)


def node_name(name: str, suffix: str) -> str:
    """The node of a foreach overload: `ForeachAddBackward0List`."""
    return f"Foreach{camel(name)}Backward{suffix}"


def self_column(fname: str, self) -> Column:
    """The list `self` of a foreach call, checked."""
    return Column(tensor_list(fname, self), True, True)


def publish(fn, fname: str, doc: str):
    """Publish `fn` as `dyngrad.<fname>` (a function only, as PyTorch's)."""
    fn.__name__ = fname
    fn.__doc__ = f"Matches `torch.{fname}`: {doc}"
    public(fn, name=fname, method=False)
    return fn


# ---- one tensor list ------------------------------------------------------------------------


def _unary(name: str) -> None:
    fname, op, op_ = "_foreach_" + name, method(name), method(name + "_")
    node = node_name(name, "0")

    def fn(self):
        return run(node, op, (self_column(fname, self),))

    def fn_(self):
        return run_inplace(op_, (self_column(fname + "_", self),))

    publish(fn, fname, f"`{name}` of each tensor of the list.")
    publish(fn_, fname + "_", f"`{name}_` on each tensor of the list.")


for _name in UNARY:
    _unary(_name)


def _foreach_max(self):
    self = self_column("_foreach_max", self)
    for t in self.values:
        if t.numel() == 0:
            raise RuntimeError(
                "_foreach_max cannot compute the maximum of an empty tensor; max over zero "
                "elements is undefined."
            )
    return run("ForeachMaxBackward1", method("max"), (self,))


def _foreach_norm(self, ord=2, dtype=None):
    if ord == math.inf and any(isinstance(t, Tensor) and t.numel() == 0 for t in self):
        raise RuntimeError(
            "_foreach_norm cannot compute the infinity norm on an empty tensor because the "
            "operation does not have an identity"
        )
    return run(
        "ForeachNormBackward0",
        lambda x: vector_norm(x, ord, dtype=dtype),
        (self_column("_foreach_norm", self),),
    )


def _foreach_powsum(self, ord=2, dtype=None):
    # sum(|x|^ord) per tensor; PyTorch has no derivative for it
    return run(
        "torch::autograd::NotImplemented",
        lambda x: (x.abs() ** ord).sum(dtype=dtype),
        (self_column("_foreach_powsum", self),),
        refused="aten::_foreach_powsum",
    )


def _foreach_clone(self, *, memory_format=None):
    def clone(x):
        return x.clone() if memory_format is None else x.clone(memory_format=memory_format)

    return run("ForeachCloneBackward0", clone, (self_column("_foreach_clone", self),))


def _foreach_zero_(self):
    return run_inplace(method("zero_"), (self_column("_foreach_zero_", self),))


def _foreach_copy_(self, src, non_blocking=False):
    self = self_column("_foreach_copy_", self)
    src = tensor_list("_foreach_copy_", src, 2, "src")
    same_length("_foreach_copy_", self.values, src, "src")
    # PyTorch records it with no derivative
    indices = Column(range(len(src)), True, False)
    return run_inplace(refused.copy_(src), (self, indices))


def _foreach_mm(self, mat2):
    self = self_column("_foreach_mm", self)
    mat2 = tensor_list("_foreach_mm", mat2, 2, "mat2")
    if len(mat2) != len(self.values):
        raise RuntimeError("_foreach_mm: self and mat2 must have the same number of tensors")
    return run("ForeachMmBackward0", method("mm"), (self, Column(mat2, True, True)))


publish(_foreach_max, "_foreach_max", "the largest element of each tensor.")
publish(_foreach_norm, "_foreach_norm", "`linalg.vector_norm(x, ord, dtype=dtype)` of each.")
publish(_foreach_powsum, "_foreach_powsum", "`sum(|x|**ord)` of each tensor.")
publish(_foreach_clone, "_foreach_clone", "a copy of each tensor.")
publish(_foreach_zero_, "_foreach_zero_", "fills each tensor with zeros.")
publish(_foreach_copy_, "_foreach_copy_", "copies each of `src` into each of `self`.")
publish(_foreach_mm, "_foreach_mm", "`mm` of each pair of matrices.")
