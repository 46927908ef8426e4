"""The foreach ops with a second argument that selects an overload: add, sub, mul, div,
clamp_min/max, maximum/minimum, pow, addcmul/addcdiv, lerp. See Note [Foreach nodes]."""

from __future__ import annotations

from ...runtime import dtypes
from ..elementwise.arithmetic import RPOW
from ..table.inplace import apply_inplace
from ..table.promotion import result_type
from ..table.record import apply
from . import refused
from .arguments import (
    Column,
    kind_of,
    packed_scalars,
    same_length,
    scalar_list,
    scalar_tensor,
    tensor_list,
)
from .functions import BINARY, PAIR_ROWS, SCALAR_ROWS, node_name, publish, self_column
from .run import method, run, run_inplace

__all__: list = []

_SIGNATURES = {
    "Scalar": "(tuple of Tensors self, Number scalar)",
    "ScalarList": "(tuple of Tensors self, tuple of Scalars scalars)",
    "List": "(tuple of Tensors self, tuple of Tensors other)",
    "Tensor": "(tuple of Tensors self, Tensor other)",
}


def _invalid(fname: str, args: tuple, kinds, keywords: dict | None = None) -> TypeError:
    got = [type(a).__name__ for a in args]
    got += [f"{k}={type(v).__name__}" for k, v in (keywords or {}).items()]
    got = ", ".join(got)
    expected = "".join(f"\n * {_SIGNATURES.get(k, k)}" for k in kinds)
    return TypeError(
        f"{fname}() received an invalid combination of arguments - got ({got}), but expected "
        f"one of:{expected}"
    )


def _column(fname: str, self: Column, other, kind: str) -> Column:
    # the second argument as it runs per element, checked against `self`
    if kind == "List":
        other = tensor_list(fname, other, 2, "other")
        same_length(fname, self.values, other, "other")
        return Column(other, True, True)
    if kind == "ScalarList":
        return Column(scalar_list(fname, self.values, other), True, False)
    if kind == "Tensor":
        return Column(scalar_tensor(fname, other), False, True)
    return Column(other, False, False)


_MISSING = object()


def _castable(x, scalar, true_division: bool = False):
    """`x`, once PyTorch's check passed that `x op scalar` can be written back into it (a
    number promotes as PyTorch's wrapped numbers do: an int tensor and 1.5 give Float)."""
    result = result_type(x, scalar)
    if true_division and not (result.is_floating_point or result.is_complex):
        result = dtypes.get_default_dtype()
    if not dtypes.can_cast(result, x.dtype):
        raise RuntimeError(
            f"result type {result._legacy} can't be cast to the desired output type "
            f"{x.dtype._legacy}"
        )
    return x


def _as_scalar(other, tensor_first: bool) -> bool:
    # PyTorch's argument parser binds a 0-dim tensor that doesn't require grad to a Scalar
    # parameter; mul and div try their Tensor overload first, add its Scalar one
    return other.dim() == 0 and not other.requires_grad and not tensor_first


# ---- add, sub, mul, div, clamp_min, clamp_max, maximum, minimum ------------------------------


def _binary(name: str, overloads: dict) -> None:
    fname = "_foreach_" + name
    op, op_ = method(name), method(name + "_")
    scaled = name in ("add", "sub")

    def element(kind: str, alpha, inplace: bool):
        # the per-element op of one overload
        if kind in ("Scalar", "ScalarList"):
            if inplace and name in SCALAR_ROWS:
                row = SCALAR_ROWS[name]
                return lambda x, s: apply_inplace(
                    row, (_castable(x, s, name == "div"),), {"other": s}, name=name + "_"
                )
            if name in PAIR_ROWS:
                if inplace:  # PyTorch records it with no derivative
                    extremum = refused.extremum_(name)
                    return lambda x, s: extremum(_castable(x, s), s)
                row = PAIR_ROWS[name]
                return lambda x, s: apply(row, (x, x.new_tensor(s, dtype=result_type(x, s))))
        elif name in PAIR_ROWS:
            row = PAIR_ROWS[name]
            if inplace:
                return lambda x, y: apply_inplace(row, (x, y), name=name + "_")
            return lambda x, y: apply(row, (x, y))
        elif scaled and (alpha != 1 or type(alpha) is not int):
            call = op_ if inplace else op
            return lambda x, y: call(x, y, alpha=alpha)
        return op_ if inplace else op

    def columns(f, self, other, alpha, scalar, scalars):
        self = self_column(f, self)
        named = {"scalar": scalar, "scalars": scalars, "alpha": alpha}
        named = {k: v for k, v in named.items() if v is not _MISSING and (k != "alpha" or v != 1)}
        given = [a for a in (other, scalar, scalars) if a is not _MISSING]
        positional = (self.values,) if other is _MISSING else (self.values, other)
        if len(given) != 1:
            raise _invalid(f, positional, overloads, named)
        other = given[0]
        kind = kind_of(other)
        tensor_first = name in ("mul", "div") and scalar is _MISSING
        if kind == "Tensor" and _as_scalar(other, tensor_first):
            kind, other = "Scalar", other.item()
        if kind == "ScalarList" and other and alpha != 1:  # only a TensorList takes alpha
            tensor_list(f, other, 2, "other")
        if kind not in overloads or alpha != 1 and kind not in ("List", "Tensor"):
            raise _invalid(f, positional, overloads, named)
        return kind, (self, _column(f, self, other, kind))

    def fn(self, other=_MISSING, *, alpha=1, scalar=_MISSING, scalars=_MISSING):
        kind, cols = columns(fname, self, other, alpha, scalar, scalars)
        return run(node_name(name, overloads[kind]), element(kind, alpha, False), cols)

    def fn_(self, other=_MISSING, *, alpha=1, scalar=_MISSING, scalars=_MISSING):
        kind, cols = columns(fname + "_", self, other, alpha, scalar, scalars)
        return run_inplace(element(kind, alpha, True), cols)

    publish(fn, fname, f"`{name}` of each tensor of the list and its other operand.")
    publish(fn_, fname + "_", f"`{name}` in place on each tensor of the list.")


for _name, _overloads in BINARY.items():
    if _name != "pow":
        _binary(_name, _overloads)


# ---- pow: also a number raised to each tensor ------------------------------------------------


def _foreach_pow(self, exponent):
    if kind_of(self) == "Tensor" and _as_scalar(self, False):  # a 0-dim tensor is a Number
        self = self.item()
    if kind_of(self) == "Scalar":  # ForeachPowBackward2: d(s^x)/dx = s^x ln s
        exponent = self_column("_foreach_pow", exponent)
        return run(
            "ForeachPowBackward2",
            lambda x, s: apply(RPOW, (x, s)),
            (exponent, Column(self, False, False)),
        )
    self = self_column("_foreach_pow", self)
    kind = kind_of(exponent)
    if kind == "Tensor" and _as_scalar(exponent, False):
        kind, exponent = "Scalar", exponent.item()
    if kind not in BINARY["pow"]:
        raise _invalid("_foreach_pow", (self.values, exponent), BINARY["pow"])
    column = _column("_foreach_pow", self, exponent, kind)
    return run(node_name("pow", BINARY["pow"][kind]), method("pow"), (self, column))


def _foreach_pow_(self, exponent):
    self = self_column("_foreach_pow_", self)
    kind = kind_of(exponent)
    if kind == "Tensor" and _as_scalar(exponent, False):
        kind, exponent = "Scalar", exponent.item()
    if kind not in BINARY["pow"]:
        raise _invalid("_foreach_pow_", (self.values, exponent), BINARY["pow"])
    return run_inplace(method("pow_"), (self, _column("_foreach_pow_", self, exponent, kind)))


publish(_foreach_pow, "_foreach_pow", "each tensor to a power, or a number to each tensor.")
publish(_foreach_pow_, "_foreach_pow_", "each tensor raised to a power in place.")


# ---- addcmul, addcdiv: self + value * t1 (*|/) t2 ---------------------------------------------


def _pointwise(name: str) -> None:
    fname = "_foreach_" + name
    op, op_ = method(name), method(name + "_")

    def columns(f, self, tensor1, tensor2, value, scalars):
        self = self_column(f, self)
        tensor1 = tensor_list(f, tensor1, 2, "tensor1")
        tensor2 = tensor_list(f, tensor2, 3, "tensor2")
        same_length(f, self.values, tensor1, "tensor1")
        same_length(f, self.values, tensor2, "tensor2")
        scalar = value if scalars is None else scalars
        kind = kind_of(scalar)
        if kind == "Tensor":
            scalar = packed_scalars(self.values, scalar)
        elif kind == "ScalarList":
            scalar = scalar_list(f, self.values, scalar)
        elif kind != "Scalar":
            raise _invalid(f, (self.values, tensor1, tensor2, scalar), ("Scalar", "ScalarList"))
        lists = (self, Column(tensor1, True, True), Column(tensor2, True, True))
        return kind, lists + (Column(scalar, kind != "Scalar", False),)

    def fn(self, tensor1, tensor2, value=1, scalars=None):
        kind, cols = columns(fname, self, tensor1, tensor2, value, scalars)
        element = lambda x, a, b, v: op(x, a, b, value=v)  # noqa: E731
        if kind == "Tensor":  # PyTorch records it with no derivative
            return run("torch::autograd::NotImplemented", element, cols, "aten::" + fname)
        return run(node_name(name, "0" + kind), element, cols)

    def fn_(self, tensor1, tensor2, value=1, scalars=None):
        kind, cols = columns(fname + "_", self, tensor1, tensor2, value, scalars)
        if kind == "Tensor":  # PyTorch records it with no derivative
            self, a, b, values = cols
            packed = value if scalars is None else scalars
            element = refused.pointwise_(name, a.values, b.values, packed)
            indices = Column(range(len(self.values)), True, False)
            return run_inplace(element, (self, indices, values))
        return run_inplace(lambda x, a, b, v: op_(x, a, b, value=v), cols)

    publish(fn, fname, f"`{name}` of each tensor of the lists.")
    publish(fn_, fname + "_", f"`{name}_` on each tensor of the list.")


_pointwise("addcmul")
_pointwise("addcdiv")


# ---- lerp: self + weight * (tensors1 - self) -------------------------------------------------

_LERP = {"Scalar": "0Scalar", "ScalarList": "0ScalarList", "List": "1List"}


def _lerp_columns(fname, self, tensors1, weight):
    self = self_column(fname, self)
    tensors1 = tensor_list(fname, tensors1, 2, "tensors1")
    same_length(fname, self.values, tensors1, "tensors1")
    kind = kind_of(weight)
    if kind not in _LERP:
        raise _invalid(fname, (self.values, tensors1, weight), ("Scalar", "ScalarList", "List"))
    if kind == "List":
        weight = tensor_list(fname, weight, 3, "weights")
        same_length(fname, self.values, weight, "weights")
    elif kind == "ScalarList":
        weight = scalar_list(fname, self.values, weight)
    return kind, (
        self,
        Column(tensors1, True, True),
        Column(weight, kind != "Scalar", kind == "List"),
    )


def _foreach_lerp(self, tensors1, weight=None, *, weights=None):
    kind, cols = _lerp_columns(
        "_foreach_lerp", self, tensors1, weight if weights is None else weights
    )
    return run(node_name("lerp", _LERP[kind]), method("lerp"), cols)


def _foreach_lerp_(self, tensors1, weight=None, *, weights=None):
    kind, cols = _lerp_columns(
        "_foreach_lerp_", self, tensors1, weight if weights is None else weights
    )
    return run_inplace(method("lerp_"), cols)


publish(_foreach_lerp, "_foreach_lerp", "`lerp` of each pair of tensors.")
publish(_foreach_lerp_, "_foreach_lerp_", "`lerp_` on each tensor of the list.")
