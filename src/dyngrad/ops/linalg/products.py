"""Matrix products: matmul and its named cases (mm, bmm, mv, dot), outer, the add* fused
forms (addmm, addmv, addr, baddbmm, addbmm)."""

from __future__ import annotations

import warnings

import numpy as np

from ..._tensor_errors import CPP_TYPE_NAMES
from ...graph.grad_mode import state as grad_state
from ...runtime.sparse_coo import SparseCOO
from ..arrays import gemm
from ..elementwise.complex_numbers import conjugate
from ..shape.grids import broadcast_shapes
from ..shape.reshaping import UNSAFE_VIEW, reshape, wrap_dim
from ..table import promotion
from ..table import record as recording
from ..table.array_backward import ArrayBackward
from ..table.errors import broadcast_error
from ..table.fast import binary
from ..table.record import apply, note_no_grad
from ..table.registry import defop
from ..table.surface import public

MM = defop(
    "mm",
    gemm.mm,  # See Note [GEMM orientation]
    {
        "x": lambda g, mat2: _mm(g, conjugate(mat2.t())),
        "mat2": lambda g, x: _mm(conjugate(x.t()), g),
    },
    array_backward=ArrayBackward(
        lambda xp, needs, g, x, mat2: (
            gemm.mm(xp, g, mat2.T) if needs[0] else None,
            _grad_mat2(g, x, mat2) if needs[1] else None,
        )
    ),
)
MM.node_class()._layouts = ("x", "mat2")  # PyTorch's `_saved_self_sym_sizes`, ... (nodes.py)
BMM = defop(
    "bmm",
    gemm.rounds_once(lambda xp, x, y: x @ y),
    {
        "x": lambda g, y: g.bmm(conjugate(y.transpose(1, 2))),
        "y": lambda g, x: conjugate(x.transpose(1, 2)).bmm(g),
    },
    array_backward=ArrayBackward(
        lambda xp, needs, g, x, y: (
            xp.matmul(g, y.swapaxes(1, 2)) if needs[0] else None,
            xp.matmul(x.swapaxes(1, 2), g) if needs[1] else None,
        )
    ),
)
MV = defop(
    "mv",
    gemm.matvec,  # BLAS gemv; matmul takes a slower path
    {"x": lambda g, y: g.unsqueeze(1) * conjugate(y), "y": lambda g, x: conjugate(x.t()).mv(g)},
)
DOT = defop(
    "dot",
    gemm.matvec,
    {"x": lambda g, y: g * conjugate(y), "y": lambda g, x: g * conjugate(x)},
)


# matmul's broadcast product in one step, for a call no gradient can flow through: its graph
# (See Note [matmul's graph]) is never seen, and its half-dozen ops cost 7x the product on
# small operands. (No formulas: it records nothing.)
MATMUL = defop(
    "matmul",
    lambda xp, x, y: gemm.matvec(xp, x, y) if y.ndim == 1 else _matmul_wide(xp, x, y),
)
_matmul_wide = gemm.rounds_once(lambda xp, x, y: xp.matmul(x, y))
# 1-D @ 2-D is unsqueeze, mm, squeeze in PyTorch: the top node is SqueezeBackward4
SQUEEZE_ROW = defop(
    "squeeze_row",
    lambda xp, x: x[0],
    {"x": lambda g: g.unsqueeze(0)},
    node="SqueezeBackward4",
    view=True,
)


def _grad_mat2(g, x, mat2):
    # x.T @ g, in the weight's order when mat2 is a transposed weight (x @ weight.t()): See
    # Note [Linear's weight gradient] in fused_products.py
    if mat2 is not None and mat2.flags.f_contiguous and not mat2.flags.c_contiguous:
        return (g.T @ x).T
    return x.T @ g


_mm = binary(MM)  # shapes already checked: formulas and mm() call the row directly


def _dtype_check(a, b) -> None:
    if a._data.dtype != b._data.dtype:
        an, bn = (CPP_TYPE_NAMES.get(t.dtype.name, t.dtype.name) for t in (a, b))
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {an} != {bn}")


def _mm_shapes(a, b) -> str:
    return f"{a[0]}x{a[1]} and {b[0]}x{b[1]}"


def check_sparse_mm(input, mat2) -> None:
    """PyTorch's errors for a sparse COO matrix times a dense one (its addmm's wording)."""
    a, b = input._data.shape, mat2._data.shape
    if len(a) != 2 or input._data.dense_dim:
        raise RuntimeError(
            f"addmm: matrices expected, got {len(a)}D tensor"
            if len(a) != 2
            else "addmm: expected first two dims to be sparse (indices has size 2 at first dim)"
        )
    if len(b) != 2:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [-{len(b)}, {len(b) - 1}], but "
            "got 1)"
        )
    if a[1] != b[0]:
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {a[1]}, got {b[0]}")
    if input._data.dtype != mat2._data.dtype:
        raise RuntimeError(
            f"expected scalar type {input.dtype._legacy} but found {mat2.dtype._legacy}"
        )


@public
def mm(input, mat2):
    """Matches `torch.mm`, a sparse COO first matrix included (its gradient is then dense, as
    PyTorch's)."""
    if recording.autocast is not None:  # cast before the dtype checks: Note [Autocast hook]
        input, mat2 = recording.autocast("mm", (input, mat2))
    if type(input._data) is SparseCOO:
        check_sparse_mm(input, mat2)
        return _mm(input, mat2)
    a, b = input._data.shape, mat2._data.shape
    if len(a) != 2:
        raise RuntimeError("self must be a matrix")
    if len(b) != 2:
        raise RuntimeError("mat2 must be a matrix")
    if a[1] != b[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_mm_shapes(a, b)})")
    _dtype_check(input, mat2)
    return _mm(input, mat2)


@public
def bmm(input, mat2):
    """Matches `torch.bmm`."""
    if recording.autocast is not None:  # cast before the dtype checks: Note [Autocast hook]
        input, mat2 = recording.autocast("bmm", (input, mat2))
    a, b = input._data.shape, mat2._data.shape
    if len(a) != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if len(b) != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if b[:2] != (a[0], a[2]):
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{a[0]}, {a[2]}] but got: [{b[0]}, {b[1]}]."
        )
    _dtype_check(input, mat2)
    return apply(BMM, (input, mat2))


@public
def mv(input, vec):
    """Matches `torch.mv`, a sparse COO matrix included."""
    if type(input._data) is SparseCOO:
        check_sparse_mm(input, vec.unsqueeze(1))
        return apply(MV, (input, vec))
    a, b = input._data.shape, vec._data.shape
    if len(a) != 2 or len(b) != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {len(a)}, {len(b)}")
    if a[1] != b[0]:
        raise RuntimeError(f"size mismatch, got input ({a[0]}), mat ({a[0]}x{a[1]}), vec ({b[0]})")
    _dtype_check(input, vec)
    return apply(MV, (input, vec))


@public
def dot(input, tensor):
    """Matches `torch.dot`."""
    a, b = input._data.shape, tensor._data.shape
    if len(a) != 1 or len(b) != 1:
        raise RuntimeError(f"1D tensors expected, but got {len(a)}D and {len(b)}D tensors")
    if a[0] != b[0]:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{a[0]}] and src [{b[0]}] to have the "
            f"same number of elements, but got {a[0]} and {b[0]} elements respectively"
        )
    if input._data.dtype != tensor._data.dtype:
        raise RuntimeError(
            f"dot : expected both vectors to have same dtype, but found "
            f"{input.dtype._legacy} and {tensor.dtype._legacy}"
        )
    return apply(DOT, (input, tensor))


@public
def matmul(input, other):
    """Matches `torch.matmul`, including its node names for each case."""
    x, y = input._data, other._data
    da, db = x.ndim, y.ndim
    if da == 2 and db == 2 and x.shape[1] == y.shape[0] and x.dtype == y.dtype:
        return _mm(input, other)  # the common case, checked here (mm() checks the others)
    if recording.autocast is not None:  # matmul is cast at its entry: See Note [Autocast hook]
        input, other = recording.autocast("matmul", (input, other))
        x, y = input._data, other._data
    if da == 0 or db == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D"
        )
    if da == 1 and db == 1:
        return dot(input, other)
    if da == 2 and db == 1:
        return mv(input, other)
    if da == 1 and db == 2:
        return apply(SQUEEZE_ROW, (mm(input.unsqueeze(0), other),))
    if da == 2 and db == 2:
        return mm(input, other)
    a, b = input._data.shape, other._data.shape
    # no gradient can flow through: the product in one step (its graph is never seen), once
    # the shapes and dtypes are known to fit (else the steps raise PyTorch's errors)
    tracked = grad_state.enabled and (input._requires_grad or other._requires_grad)
    if not tracked and a[-1] == b[-2 if db > 1 else 0] and x.dtype == y.dtype:
        try:
            _batch_shape(a[:-2] if da > 1 else (), b[:-2])
        except RuntimeError:
            pass
        else:
            result = apply(MATMUL, (input, other))
            if not grad_state.enabled:
                note_no_grad(result, (input, other))
            return result
    if _should_fold(input, other):
        if da >= 3 and db == 1:
            rows = _prod(a[:-1])
            if a[-1] != b[0]:
                raise RuntimeError(
                    f"size mismatch, got input ({rows}), mat ({rows}x{a[-1]}), vec ({b[0]})"
                )
            if input._data.dtype != other._data.dtype:
                x, y = input.dtype._legacy, other.dtype._legacy
                raise RuntimeError(
                    f"addmv input tensors must have the same dtype, but got {y}, {x}, and {y}"
                )
        return _folded(input, other)
    # the rest is one broadcast bmm in PyTorch (a vector as a one-column matrix)
    batch = _batch_shape(a[:-2] if da > 1 else (), b[:-2])
    inner = a[-1]
    if inner != b[-2 if db > 1 else 0]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{_prod(batch)}, {inner}] but got: [{_prod(batch)}, {b[-2 if db > 1 else 0]}]."
        )
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(
            f"expected scalar type {input.dtype._legacy} but found {other.dtype._legacy}"
        )
    return _batched(input, other, batch)


# Note [matmul's graph]
# torch.matmul is a composite in PyTorch, and its graph shows how it ran: a batch times a
# matrix or a vector folds the batch into the rows of one mm (mv), a matrix or a vector times
# a batch folds the transposed batch, and the rest expands both batches to one and runs bmm,
# each with the views and copies around it (UnsafeViewBackward0 over BmmBackward0 over the
# operands' ViewBackward0/ReshapeAliasBackward0 over ExpandBackward0). dyngrad runs the same
# steps, so the graph (and what each node saves) is PyTorch's, and so are the rules that pick
# a path: `_should_fold` and the squeeze of a batch of one that requires grad.
def _should_fold(input, other) -> bool:
    # fold when the matrix (vector) side needs a gradient (its backward then never holds the
    # batch), else only when the batch flattens into rows without a copy
    da, db = input._data.ndim, other._data.ndim
    larger = da >= db
    if not (max(da, db) >= 3 and min(da, db) <= 2):
        return False
    if (other if larger else input)._requires_grad:
        return True
    if da == 2:  # mm on the transposed batch, then a copy back: a bmm instead
        return False
    x = input._data if larger else np.swapaxes(other._data, -1, -2)
    shape, strides = x.shape, x.strides
    return x.size == 0 or all(
        strides[i] == strides[i + 1] * shape[i + 1] for i in range(len(shape) - 2)
    )


def _folded(input, other):
    # (..., n, k) @ (k, m) or (k,): one mm (mv) on the batch's rows, then an unsafe view; a
    # matrix (vector) times a batch is the transposed product, copied back for a matrix
    transpose = other._data.ndim > input._data.ndim
    if transpose:
        big, small = other.mT, input.t() if input._data.ndim == 2 else input
    else:
        big, small = input, other
    shape = big._data.shape[:-1]
    rows = reshape(big, (_prod(shape), big._data.shape[-1]))
    if small._data.ndim == 1:
        return apply(UNSAFE_VIEW, (mv(rows, small),), {"shape": shape})
    product = apply(UNSAFE_VIEW, (mm(rows, small),), {"shape": shape + small._data.shape[1:]})
    return product.mT.contiguous() if transpose else product


def _batched(input, other, batch: tuple):
    # both batches expanded to one, flattened, one bmm (a vector as a one-column matrix)
    da, db = input._data.ndim, other._data.ndim
    a, b = input._data.shape, other._data.shape
    if da == 3 and db == 3 and a[0] != b[0]:  # a batch of one that requires grad: a fold
        if a[0] == 1 and input._requires_grad:
            return matmul(input.squeeze(0), other)
        if b[0] == 1 and other._requires_grad:
            return matmul(input, other.squeeze(0))
    n = a[-2] if da > 1 else 1
    m, p = (b[-2], b[-1]) if db > 1 else (b[0], 1)
    count = _prod(batch)
    left = reshape(input.expand(*batch, n, a[-1]), (count, n, a[-1]))
    if db == 1:
        right = reshape(other.expand(*batch, m), (count, m)).unsqueeze(2)
    else:
        right = reshape(other.expand(*batch, m, p), (count, m, p))
    product = bmm(left, right)
    if db == 1:
        product = product.squeeze(-1)
    shape = batch + ((n,) if da > 1 else ()) + ((p,) if db > 1 else ())
    return apply(UNSAFE_VIEW, (product,), {"shape": shape})


def _batch_shape(batch_a, batch_b) -> tuple:

    try:
        return np.broadcast_shapes(batch_a, batch_b)
    except ValueError:
        raise broadcast_error([batch_a, batch_b]) from None


def _prod(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


public(matmul, name="__matmul__", function=False)
public(lambda self, other: matmul(other, self), name="__rmatmul__", function=False)


# ---- outer products -----------------------------------------------------------------------


@public
def outer(input, vec2):
    """Matches `torch.outer`: input[:, None] * vec2 (MulBackward0, as in PyTorch)."""
    for name, v in (("self", input), ("vec2", vec2)):  # (addr says vec1: PyTorch's names)
        if v._data.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {v._data.ndim}-D")
    return input.reshape(input.shape[0], 1) * vec2  # PyTorch's reshape: ViewBackward0


ger = public(outer, name="ger")


CROSS = defop(
    "linalg_cross",
    lambda xp, x, y, *, dim: xp.cross(x, y, axis=dim),
    {
        "x": lambda g, y, dim: apply(CROSS, (y, g), {"dim": dim}),
        "y": lambda g, x, dim: apply(CROSS, (g, x), {"dim": dim}),
    },
    promote=promotion.binary,
)


def linalg_cross(input, other, *, dim=-1):
    """Matches `torch.linalg.cross`: the cross product of 3-vectors along `dim`."""
    a, b = input._data.shape, other._data.shape
    if len(a) != len(b):
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = wrap_dim(dim, len(a))
    if a[d] != 3 or b[d] != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got {a[d]} and {b[d]}"
        )
    return apply(CROSS, (input, other), {"dim": d - len(a)})


@public
def cross(input, other, dim=None):
    """Matches `torch.cross`: without `dim`, the first dim of size 3 (with PyTorch's warning)."""
    if dim is None:
        warnings.warn(
            "Using torch.cross without specifying the dim arg is deprecated.\n"
            "Please either pass the dim explicitly or simply use torch.linalg.cross.\n"
            "The default value of dim will change to agree with that of linalg.cross "
            "in a future release.",
            UserWarning,
            stacklevel=2,
        )
        shape = broadcast_shapes(input._data.shape, other._data.shape)
        dim = next((i for i, s in enumerate(shape) if s == 3), -1)
    return linalg_cross(input, other, dim=dim)


# ---- nan-ignoring reductions, rot90 -------------------------------------------------------------


@public
def kron(input, other):
    """Matches `torch.kron`: the Kronecker product, as PyTorch forms it (interleaved unit dims,
    one product, an unsafe view: UnsafeViewBackward0 over MulBackward0)."""
    a, b = input._data.shape, other._data.shape
    ndim = max(len(a), len(b))
    a = (1,) * (ndim - len(a)) + a
    b = (1,) * (ndim - len(b)) + b
    a_view = tuple(s for size in a for s in (size, 1))
    b_view = tuple(s for size in b for s in (1, size))
    product = apply(UNSAFE_VIEW, (input,), {"shape": a_view}) * apply(
        UNSAFE_VIEW, (other,), {"shape": b_view}
    )
    shape = tuple(x * y for x, y in zip(a, b))
    try:  # the product keeps a transposed input's layout, which PyTorch's view then refuses
        np.reshape(product._data, shape, copy=False)
    except ValueError:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        ) from None
    return apply(UNSAFE_VIEW, (product,), {"shape": shape})
