"""Diagonals and triangles: diagonal (a view), diag, diag_embed, trace, tril, triu,
fill_diagonal_."""

from __future__ import annotations

import numpy as np

from ..creation.ranges import eye
from ..table.arguments import as_int
from ..table.inplace import apply_inplace
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public
from .reshaping import wrap_dim
from .storage import as_strided


def diagonal_view(x, offset: int, dim1: int, dim2: int):
    """A writable strided view of a diagonal; the diagonal becomes the last dim, as in
    PyTorch (NumPy's own `diagonal` returns a read-only array)."""
    n1, n2 = x.shape[dim1], x.shape[dim2]
    start1, start2 = (0, offset) if offset >= 0 else (-offset, 0)
    length = max(min(n1 - start1, n2 - start2), 0)
    others = [d for d in range(x.ndim) if d not in (dim1, dim2)]
    shape = tuple(x.shape[d] for d in others) + (length,)
    strides = tuple(x.strides[d] for d in others) + (x.strides[dim1] + x.strides[dim2],)
    if length:
        index = [slice(None)] * x.ndim
        index[dim1], index[dim2] = slice(start1, None), slice(start2, None)
        x = x[tuple(index)]
    return np.lib.stride_tricks.as_strided(x, shape, strides, writeable=x.flags.writeable)


def _diagonal_backward_fwd(xp, grad, *, shape, offset, dim1, dim2):
    out = xp.zeros(shape, dtype=grad.dtype)
    diagonal_view(out, offset, dim1, dim2)[...] = grad
    return out


def _diag_embed_fwd(xp, x, *, offset, dim1, dim2):
    n = x.shape[-1] + abs(offset)
    shape = list(x.shape[:-1])
    for d in sorted((dim1, dim2)):
        shape.insert(d, n)
    out = xp.zeros(shape, dtype=x.dtype)
    diagonal_view(out, offset, dim1, dim2)[...] = x
    return out


def _diagonal_grad(g, x_shape, offset, dim1, dim2):
    return apply(
        DIAGONAL_BACKWARD, (g,), {"shape": x_shape, "offset": offset, "dim1": dim1, "dim2": dim2}
    )


DIAGONAL = defop(
    "diagonal",
    lambda xp, x, *, offset, dim1, dim2: diagonal_view(x, offset, dim1, dim2),
    {"x": _diagonal_grad},
    view=True,
)
DIAGONAL_BACKWARD = defop(
    "diagonal_backward",
    _diagonal_backward_fwd,
    {"grad": lambda g, offset, dim1, dim2: g.diagonal(offset, dim1, dim2)},
)
# torch.diag of a matrix is a copy of its diagonal; PyTorch names the node this way
DIAG_COPY = defop(
    "diag_copy",
    lambda xp, x, *, offset, dim1, dim2: diagonal_view(x, offset, dim1, dim2).copy(),
    {"x": _diagonal_grad},
    node="DiagonalBackward0_copy",
)
DIAG_EMBED = defop(
    "diag_embed",
    _diag_embed_fwd,
    {"x": lambda g, offset, dim1, dim2: g.diagonal(offset, dim1, dim2)},
)
TRACE = defop(
    "trace",
    lambda xp, x: xp.trace(x, dtype=np.int64 if x.dtype.kind in "biu" else x.dtype),
    {"x": lambda g, x_shape: g * _eye(x_shape, g)},
)
TRIL = defop(
    "tril",
    lambda xp, x, *, diagonal: xp.tril(x, diagonal),
    {"x": lambda g, diagonal: g.tril(diagonal)},
)
TRIU = defop(
    "triu",
    lambda xp, x, *, diagonal: xp.triu(x, diagonal),
    {"x": lambda g, diagonal: g.triu(diagonal)},
)


def _eye(shape, like):

    return eye(shape[0], shape[1], dtype=like.dtype)


def _diagonal_dims(ndim, offset, dim1, dim2):
    offset = as_int(offset)
    d1, d2 = wrap_dim(dim1, ndim), wrap_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return {"offset": offset, "dim1": d1, "dim2": d2}


@public
def diagonal(input, offset=0, dim1=0, dim2=1):
    """Matches `torch.diagonal`: a view; the diagonal is the last dim of the result."""
    return apply(DIAGONAL, (input,), _diagonal_dims(input._data.ndim, offset, dim1, dim2))


@public
def diag(input, diagonal=0):
    """Matches `torch.diag`: a vector's diagonal matrix, or a copy of a matrix's diagonal."""
    ndim = input._data.ndim
    if ndim == 1:
        return diag_embed(input, diagonal, 0, 1)
    if ndim != 2:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {ndim}D")
    return apply(DIAG_COPY, (input,), {"offset": int(diagonal), "dim1": 0, "dim2": 1})


@public
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Matches `torch.diag_embed`: the last dim of `input` placed on a diagonal."""
    attrs = _diagonal_dims(input._data.ndim + 1, offset, dim1, dim2)
    return apply(DIAG_EMBED, (input,), attrs)


@public
def trace(input):
    """Matches `torch.trace`: the sum of a matrix's main diagonal."""
    if input._data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input._data.ndim}")
    return apply(TRACE, (input,))


def _triangle(name):
    op = TRIL if name == "tril" else TRIU

    def check(input):
        if input._data.ndim < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")

    def fn(input, diagonal=0):
        diagonal = as_int(diagonal)
        check(input)
        return apply(op, (input,), {"diagonal": diagonal})

    def fn_(self, diagonal=0):
        diagonal = as_int(diagonal)
        check(self)
        return apply_inplace(op, (self,), {"diagonal": diagonal}, name=name + "_")

    fn.__name__, fn_.__name__ = name, name + "_"
    fn.__doc__ = f"Matches `torch.{name}`."
    fn_.__doc__ = f"Matches `torch.Tensor.{name}_`."
    public(fn_, function=False)
    return public(fn)


tril = _triangle("tril")
triu = _triangle("triu")


@public(function=False)
def fill_diagonal_(self, fill_value, wrap=False):
    """Matches `torch.Tensor.fill_diagonal_`: fills the main diagonal (of a matrix, or of a
    tensor whose dims are all equal) in place; `wrap` restarts it every `width + 1` rows of a
    tall matrix, stepping through memory as PyTorch does."""
    shape, strides = self.shape, self.stride()
    if len(shape) < 2:
        raise RuntimeError("dimensions must larger than 1")
    height, width = shape[0], shape[1]
    if len(shape) > 2 and any(size != height for size in shape):
        raise RuntimeError("all dimensions of input must be of equal length")
    # PyTorch fills strided views of the storage (so the history is CopySlices, one per view)
    offset, step = self.storage_offset(), sum(strides)
    length = min(height, width)
    as_strided(self, (length,), (step,), offset).fill_(fill_value)
    if wrap and len(shape) == 2 and height > width + 1:
        extra = -(-self.numel() // (width + 1)) - length
        if extra > 0:
            start = offset + (width + 1) * strides[0]
            as_strided(self, (extra,), (step,), start).fill_(fill_value)
    return self
