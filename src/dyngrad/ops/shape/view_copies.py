"""The `*_copy` twins of the view ops (`torch.permute_copy`, `split_copy`, `view_copy`, ...):
the view's values in new contiguous memory, and `narrow_copy`.

# Note [View copies]
# PyTorch generates `<view>_copy` for every view op: the same arguments, errors and formula,
# but the result owns its memory, and its node is the view's node with `_copy` appended
# (`PermuteBackward0_copy`, `SqueezeBackward1_copy`). Each copy row here is the view row's
# forward followed by a copy, under that name. A call first runs the view's own public
# function without grad (its argument checks and errors are the view's, as in PyTorch), reads
# the (row, attributes) step that view recorded (Note [In-place through a view] keeps it on
# every view), and applies the copy row with them: one place parses the arguments.
"""

from __future__ import annotations

import functools

from ..._tensor import Tensor
from ...graph.grad_mode import no_grad
from ...graph.grad_mode import state as grad_state
from ..elementwise.complex_numbers import VIEW_AS_REAL, view_as_complex, view_as_real
from ..table.record import apply
from ..table.registry import NOT_IMPLEMENTED, defop
from ..table.surface import public
from .diagonal import DIAGONAL, diagonal
from .indexing import SELECT, SLICE, narrow, select
from .joining import SPLIT, SPLIT_WITH_SIZES, UNBIND, split, split_with_sizes, unbind
from .rearrange import UNFOLD
from .reshaping import (
    ALIAS,
    EXPAND,
    PERMUTE,
    SQUEEZE,
    SQUEEZE_DIM,
    SQUEEZE_DIMS,
    TRANSPOSE,
    UNSQUEEZE,
    VIEW,
    T,
    expand,
    permute,
    squeeze,
    transpose,
    unsqueeze,
    view,
)
from .storage import AS_STRIDED, as_strided

__all__ = ["COPY_ROWS", "narrow_copy"]


def _owned(out):
    # a copy in C order (NumPy's and CuPy's default): never a view of the input, writeable
    if isinstance(out, (tuple, list)):
        return tuple(o.copy() for o in out)
    return out.copy()


def _copy_row(op):
    """The `_copy` row of view row `op`: its forward then a copy, its formulas, its node
    name with `_copy` appended. See Note [View copies]."""

    @functools.wraps(op.fwd)  # the table reads the view's inputs and attributes through this
    def fwd(xp, *args, **attrs):
        return _owned(op.fwd(xp, *args, **attrs))

    grads = {name: f[0] for name, f in zip(op.inputs, op.formulas) if f is not None}
    return defop(f"{op.name}_copy", fwd, grads, node=op.node_name + "_copy", outputs=op.n_outputs)


COPY_ROWS = {
    op: _copy_row(op)
    for op in (
        ALIAS,
        AS_STRIDED,
        DIAGONAL,
        EXPAND,
        PERMUTE,
        SELECT,
        SLICE,
        SPLIT,
        SPLIT_WITH_SIZES,
        SQUEEZE,
        SQUEEZE_DIM,
        SQUEEZE_DIMS,
        T,
        TRANSPOSE,
        UNBIND,
        UNFOLD,
        UNSQUEEZE,
        VIEW,
        VIEW_AS_REAL,
    )
}
# torch.narrow_copy is its own ATen op (not narrow's generated twin), so its own node name
NARROW_COPY = defop(
    "narrow_copy",
    functools.wraps(SLICE.fwd)(lambda xp, x, **attrs: _owned(SLICE.fwd(xp, x, **attrs))),
    {"x": SLICE.formulas[0][0]},
    node="NarrowCopyBackward0",
)


def _refuse_detach_copy(g):
    raise RuntimeError("derivative for aten::detach_copy is not implemented")


# PyTorch records detach_copy with a node that refuses backward (its result requires grad)
DETACH_COPY = defop(
    "detach_copy", lambda xp, x: x.copy(), {"x": _refuse_detach_copy}, node=NOT_IMPLEMENTED
)


def _copy_of(view_fn, input: Tensor, *args, **kwargs):
    """Apply the copy row of the view `view_fn(input, *args)` makes."""
    with no_grad():
        result = view_fn(input, *args, **kwargs)
    first = result[0] if isinstance(result, (tuple, list)) else result
    chain = first._view_chain if isinstance(first, Tensor) else None
    if chain is None or chain[0] is not input._view_chain or chain[1] not in COPY_ROWS:
        # an inference tensor (no view recorded), or a view made in more than one step
        out = view_fn(input, *args, **kwargs)
        if isinstance(out, (tuple, list)):
            return tuple(_owned_tensor(o) for o in out)
        return _owned_tensor(out)
    return apply(COPY_ROWS[chain[1]], (input,), chain[2])


def _owned_tensor(t: Tensor) -> Tensor:
    return t.contiguous() if not t.is_contiguous() else t.clone()


def _copy_function(name: str, view_fn):
    def fn(input, *args, **kwargs):
        return _copy_of(view_fn, input, *args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Matches `torch.{name}`: `{view_fn.__name__}`'s values in new memory."
    public(fn, name=name, method=False)
    return fn


alias_copy = _copy_function("alias_copy", lambda input: input.alias())
as_strided_copy = _copy_function("as_strided_copy", as_strided)
diagonal_copy = _copy_function("diagonal_copy", diagonal)
expand_copy = _copy_function("expand_copy", expand)
permute_copy = _copy_function("permute_copy", permute)
select_copy = _copy_function("select_copy", select)
split_copy = _copy_function("split_copy", split)
split_with_sizes_copy = _copy_function("split_with_sizes_copy", split_with_sizes)
squeeze_copy = _copy_function("squeeze_copy", squeeze)
t_copy = _copy_function("t_copy", lambda input: input.t())
transpose_copy = _copy_function("transpose_copy", transpose)
unbind_copy = _copy_function("unbind_copy", unbind)
unfold_copy = _copy_function(
    "unfold_copy", lambda input, dimension, size, step: input.unfold(dimension, size, step)
)
unsqueeze_copy = _copy_function("unsqueeze_copy", unsqueeze)
view_as_real_copy = _copy_function("view_as_real_copy", view_as_real)


@public(method=False)
def slice_copy(input, dim=0, start=None, end=None, step=1):
    """Matches `torch.slice_copy`: `input[..., start:end:step]` along `dim`, in new memory."""
    index = (slice(None),) * (dim % max(input.dim(), 1)) + (slice(start, end, step),)
    return _copy_of(lambda x: x[index], input)


@public(method=False)
def view_copy(input, size):
    """Matches `torch.view_copy`; with a dtype the result is detached, as in PyTorch."""
    if isinstance(size, (list, tuple)) or isinstance(size, int):
        return _copy_of(view, input, size)
    with no_grad():
        return view(input, size).clone()


@public(method=False)
def view_as_complex_copy(input):
    """Matches `torch.view_as_complex_copy` (PyTorch gives it no gradient, so no row)."""
    if grad_state.enabled and input.requires_grad:
        raise RuntimeError(
            "view_as_complex_copy does not support automatic differentiation for outputs with "
            "complex dtype."
        )
    return _copy_of(view_as_complex, input)


@public(method=False)
def detach_copy(input):
    """Matches `torch.detach_copy`: a copy that, as in PyTorch, requires grad when the input
    does and refuses backward."""
    return apply(DETACH_COPY, (input,))


@public
def narrow_copy(input, dim, start, length):
    """Matches `torch.narrow_copy` and `Tensor.narrow_copy` (node NarrowCopyBackward0)."""
    with no_grad():
        chain = narrow(input, dim, start, length)._view_chain
    if chain is None:  # an inference tensor: no view step recorded
        return _owned_tensor(narrow(input, dim, start, length))
    return apply(NARROW_COPY, (input,), chain[2])
