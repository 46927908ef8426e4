"""The op table machinery: `defop` registers an op (its forward, formulas and what they save).

# Note [One op, one entry]
# An entry holds the forward on arrays (`fwd(xp, *inputs, **attrs)`) and one backward
# formula per differentiable input, written with Tensor ops so that `create_graph=True`
# differentiates the formulas themselves. A formula's parameter names say what it reads:
#   g          the gradient of the output (a tuple of them for multi-output ops)
#   out        the op's output (saved without a reference cycle, see Note [Graph ownership])
#   x, y, ...  the op's inputs by the forward's parameter names (saved tensors)
#   dim, ...   the forward's keyword-only attributes (kept, never "freed")
#   x_shape    an input's shape (recorded for every input that needs grad)
# From the names the registry knows, at definition time, what to save for every combination
# of inputs that require grad: a frozen weight's op saves no activation.
# Formulas never un-broadcast; the node sums each gradient back to its input's shape once.

# Note [Edges are differentiable inputs]
# A node's `next_functions` has one edge per input that has a formula, in the inputs' order:
# PyTorch's node collects the edges of the arguments its derivatives.yaml entry differentiates,
# and no other. So `where`'s condition, `masked_fill`'s mask, an index, a class target or a
# Python number that PyTorch's overload takes as a Scalar (`x ** 2`, `2 - x`, `fmod(x, 2)`)
# is an input without a formula, and gets no edge: `(x ** 2).grad_fn.next_functions` is one
# edge, as in PyTorch. An input with a formula that does not require grad gets (None, 0), as
# does a Python number PyTorch wraps into a tensor (`x * 2`: mul has no Scalar overload in
# Python). A row whose inputs all have formulas has `edges = None` (edge i is input i); else
# `edges` lists the inputs that have one, and `edge_mask` keeps only their requires-grad bits.
# The node's `_meta` stays one entry per input (None for an input without an edge).
# PyTorch's `NotImplemented` node (an op without a derivative: floor_divide, `2 % x`) is the
# exception: it links only the inputs that require grad, so its edges are chosen per call
# (`edges = REQUIRING_GRAD`); the foreach ops' (variadic rows, over tensor lists) link every
# tensor of their lists.
"""

from __future__ import annotations

from collections import defaultdict
from operator import itemgetter

from ...graph.node import REQUIRING_GRAD
from ...graph.saved import SAVES_OUTPUT
from .array_backward import ArrayBackward
from .generated import parameters
from .nodes import OpNode, StashOpNode, VariadicOpNode, saved_properties
from .opmath import (
    OPMATH_BACKWARD,
    OPMATH_OPS,
    ROUNDED_ATTRS,
    in_float32,
    kernel_in_float32,
)

__all__ = ["OpDef", "defop", "sparse_forward", "OPS", "NOT_IMPLEMENTED", "refused"]

OPS: dict[str, OpDef] = {}
# the node of an op PyTorch has no derivative for
NOT_IMPLEMENTED = "torch::autograd::NotImplemented"


class OpDef:
    """One row of the op table."""

    __slots__ = (
        "name",
        "fwd",
        "inputs",
        "attrs",
        "formulas",
        "node_cls",
        "records",
        "plans",
        "promote",
        "view",
        "n_outputs",
        "differentiable",
        "variadic",
        "shape_names",
        "readers",
        "reads_shapes",
        "array_backward",
        "stash",
        "sparse",
        "node_name",
        "edges",
        "edge_mask",
        "refused",
        "mutates",
        "opmath_backward",
    )

    def node_class(self):
        """The row's node class (`MulBackward0`; None for a row without formulas).

        Note [Node classes on first use]: a node class is made when the op first records a
        node, not when the table loads: making ~230 classes was a tenth of `import dyngrad`,
        and most scripts record a few dozen ops. `records` says whether the row has one; the
        hot paths read `op.node_cls or op.node_class()`. (Not a `__getattr__` on OpDef: that
        would slow every attribute read of every row.)
        """
        if self.node_cls is None and self.records:
            body = {"__slots__": (), "_op": self, "_edges": self.edges, **saved_properties(self)}
            if self.n_outputs is not None:
                body["_n_outputs"] = self.n_outputs
            if self.stash:
                base = StashOpNode
            else:
                base = OpNode if self.n_outputs is not None else VariadicOpNode
            self.node_cls = type(self.node_name, (base,), body)
        return self.node_cls

    def __repr__(self) -> str:
        return f"OpDef({self.name})"

    def is_differentiable(self, output_nr: int) -> bool:
        """Whether the op's output `output_nr` carries gradients (max's indices do not)."""
        return self.differentiable is None or output_nr in self.differentiable


def _node_name(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_")) + "Backward0"


def defop(
    name: str,
    fwd,
    grads: dict | None = None,
    *,
    node: str | None = None,
    promote=None,
    view: bool = False,
    outputs: int | None = 1,
    differentiable: tuple | None = None,
    array_backward=None,
    stash: bool = False,
    non_differentiable: tuple = (),
    aten: str | None = None,
    mutates: tuple = (),
) -> OpDef:
    """Register an op: its forward on arrays and each input's backward formula.

    `promote` casts the input arrays first (see `ops.promotion`); `view=True` marks an output
    that shares its input's array and version counter; `differentiable` lists which outputs
    carry gradients (the indices output of `max(dim)` does not). `outputs=None` is an op whose
    forward returns as many outputs as the call asks (`unbind`, `split`), all differentiable.
    A forward with `*tensors` takes any number of inputs (`cat`, `stack`); its one formula
    reads `i`, the input's position, and never the inputs themselves. `array_backward` computes
    the input gradients on arrays when no graph is recorded (Note [Array backwards]).
    `stash=True` is a forward that returns (output, stash): an intermediate its kernel reads
    as `stash` instead of computing it again (Note [Stashed intermediates]).
    `non_differentiable` names the inputs (without formulas) that PyTorch refuses to see
    requiring grad, naming the op as `aten` (by default `name`) in its error. `mutates` names
    the inputs the forward writes in place.
    """
    params = parameters(fwd)[1:]  # after xp
    op = OpDef()
    op.name = name
    op.fwd = fwd
    # See Note [Reduced-precision opmath]
    if name in OPMATH_OPS or name in ROUNDED_ATTRS:
        op.fwd = in_float32(fwd, name in ROUNDED_ATTRS)
    op.opmath_backward = name in OPMATH_BACKWARD
    if op.opmath_backward and array_backward is not None:
        if not isinstance(array_backward, ArrayBackward):  # formulas on arrays would not widen
            raise TypeError(f"{name}: an opmath backward needs an ArrayBackward kernel")
        array_backward.fn = kernel_in_float32(array_backward.fn)
    op.inputs = tuple(p.name for p in params if p.kind == p.POSITIONAL_OR_KEYWORD)
    op.variadic = any(p.kind == p.VAR_POSITIONAL for p in params)
    if op.variadic:
        op.inputs = tuple(p.name for p in params if p.kind == p.VAR_POSITIONAL)
    op.shape_names = tuple(i + "_shape" for i in op.inputs)
    op.attrs = tuple(p.name for p in params if p.kind == p.KEYWORD_ONLY)
    reserved = {"g", "out", "i"} & (set(op.inputs) | set(op.attrs))
    if reserved:  # formulas read these names as the gradient, the output, the input index
        raise TypeError(f"{name}: inputs and attributes may not be named {sorted(reserved)}")
    op.promote = promote
    op.stash = stash
    op.view = view
    op.n_outputs = outputs
    if differentiable is None and outputs is not None:
        differentiable = tuple(range(outputs))
    op.differentiable = differentiable
    grads = grads or {}
    unknown = set(grads) - set(op.inputs)
    if unknown:
        raise TypeError(f"{name}: formulas for unknown inputs {sorted(unknown)}")
    known = {"g", "out"} | set(op.inputs) | set(op.attrs) | {i + "_shape" for i in op.inputs}
    if op.variadic:
        known = known - set(op.inputs) - {"out"} | {"i"}
    op.formulas = []
    for inp in op.inputs:
        formula = grads.get(inp)
        if formula is None:
            op.formulas.append(None)
            continue
        fparams = tuple(p.name for p in parameters(formula))
        bad = set(fparams) - known
        if bad:
            raise TypeError(f"{name}: formula for {inp} reads unknown names {sorted(bad)}")
        op.formulas.append((formula, fparams))
    op.formulas = tuple(op.formulas)
    # See Note [Edges are differentiable inputs]
    differentiable_inputs = tuple(i for i, f in enumerate(op.formulas) if f is not None)
    every = op.variadic or len(differentiable_inputs) == len(op.inputs)
    op.edges = None if every else differentiable_inputs
    op.edge_mask = -1 if every else sum(1 << i for i in differentiable_inputs)
    if node == NOT_IMPLEMENTED and not op.variadic:  # (foreach's, over lists, links them all)
        op.edges = REQUIRING_GRAD
    op.refused = {
        op.inputs.index(inp): (
            f"The function '{aten or name}' is not differentiable with respect to argument "
            f"'{inp}'. This input cannot have requires_grad True."
        )
        for inp in non_differentiable
    }
    op.readers = tuple(_reader(f) for f in op.formulas)
    op.reads_shapes = any(p in op.shape_names for f in op.formulas if f for p in f[1])
    op.plans = _SavePlans(op) if not op.variadic else defaultdict(tuple)  # saves nothing
    op.node_name = node or _node_name(name)
    op.records = bool(grads)
    op.node_cls = None  # made on first use: See Note [Node classes on first use]
    op.array_backward = array_backward.bind(op) if array_backward is not None else None
    op.sparse = None
    # inputs the forward writes in place (batch norm's running statistics); their counters
    # are bumped by the op's caller, and by a replay (Note [In-place steps] in _dynamo/trace.py)
    op.mutates = tuple(op.inputs.index(inp) for inp in mutates)
    OPS[name] = op
    return op


def refused(text: str, error: type = RuntimeError):
    """The formula of an input PyTorch has no derivative for (a backward row's, mostly): the
    backward that reaches it raises `error(text)`, PyTorch's message."""

    def not_implemented(g):  # noqa: ARG001 - the gradient that cannot be carried further
        raise error(text)

    return not_implemented


def sparse_forward(op: OpDef, fn=None) -> OpDef:
    """Let `op` run on sparse COO tensors: `fn(xp, *arrays, **attrs)` is its forward when the
    first input is one (None: the row's own forward takes them). Without one, such a call
    raises PyTorch's "Could not run ... 'SparseCPU' backend" error. Returns `op`."""
    op.sparse = op.fwd if fn is None else fn
    return op


def _reader(formula):
    # (formula, getter of its arguments from the node's names, whether the getter gives a
    # tuple): a C itemgetter instead of a list built per backward call (Note [Hot path])
    if formula is None:
        return None
    fn, params = formula
    if len(params) == 1:
        return fn, itemgetter(params[0]), False
    return fn, (itemgetter(*params) if params else lambda env: ()), True


class _SavePlans(dict):
    """For each mask of inputs that require grad, the (name, input index) pairs to save; index
    -1 stands for the output. A plan is worked out when a call first needs it (most of the
    2**inputs masks never occur) and is a dict lookup from then on."""

    __slots__ = ("op",)

    def __init__(self, op: OpDef) -> None:
        self.op = op

    def __missing__(self, mask: int) -> tuple:
        op = self.op
        names: list[str] = []
        for i, formula in enumerate(op.formulas):
            if mask >> i & 1 and formula is not None:
                names += [p for p in formula[1] if p in op.inputs or p == "out"]
        ordered = dict.fromkeys(names)
        plan = tuple((n, -1 if n == "out" else op.inputs.index(n)) for n in ordered)
        plan = self[mask] = SAVES_OUTPUT if plan == SAVES_OUTPUT else plan
        return plan
