"""Rearranging elements: flip, roll, repeat/tile, repeat_interleave, movedim, unfold."""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from ..creation.factories import from_numpy
from ..table.arguments import as_int, as_ints, int_list, new_shape
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public
from .reshaping import normalize_dims, permute, wrap_dim


def _repeat_grad(g, x_shape, repeats):
    # the output is the input tiled: split each dim into (repeat, size) and sum the repeats
    lead = len(repeats) - len(x_shape)
    padded = (1,) * lead + tuple(x_shape)
    split = []
    for r, s in zip(repeats, padded):
        split += [r, s]
    summed = g.reshape(split).sum(tuple(range(0, 2 * len(padded), 2)))
    return summed.reshape(x_shape)


def _unfold_strided(xp, x, dim, size, step):
    if x.ndim == 0:  # PyTorch's one window of a 0-d tensor
        return x.reshape(1)
    count = (x.shape[dim] - size) // step + 1
    shape = x.shape[:dim] + (count,) + x.shape[dim + 1 :] + (size,)
    strides = x.strides[:dim] + (x.strides[dim] * step,) + x.strides[dim + 1 :] + (x.strides[dim],)
    return np.lib.stride_tricks.as_strided(x, shape, strides, writeable=x.flags.writeable)


def _unfold_backward_fwd(xp, grad, *, shape, dim, size, step):
    # every window adds its slice back; windows overlap when step < size
    if not shape:
        return grad.reshape(())
    out = xp.zeros(shape, dtype=grad.dtype)
    count = grad.shape[dim]
    for k in range(size):
        index = [slice(None)] * out.ndim
        index[dim] = slice(k, k + step * (count - 1) + 1, step)
        out[tuple(index)] += grad[..., k]
    return out


FLIP = defop(
    "flip", lambda xp, x, *, dims: xp.flip(x, dims).copy(), {"x": lambda g, dims: g.flip(dims)}
)
ROLL = defop(
    "roll",
    lambda xp, x, *, shifts, dims: _roll(xp, x, shifts, dims),
    {"x": lambda g, shifts, dims: g.roll(tuple(-s for s in shifts), dims)},
)
REPEAT = defop(
    "repeat",
    lambda xp, x, *, repeats: xp.tile(x, repeats),
    {"x": lambda g, x_shape, repeats: _repeat_grad(g, x_shape, repeats)},
)
UNFOLD = defop(
    "unfold",
    lambda xp, x, *, dim, size, step: _unfold_strided(xp, x, dim, size, step),
    {
        "x": lambda g, x_shape, dim, size, step: apply(
            UNFOLD_BACKWARD, (g,), {"shape": x_shape, "dim": dim, "size": size, "step": step}
        )
    },
    view=True,
)
UNFOLD_BACKWARD = defop(
    "unfold_backward",
    _unfold_backward_fwd,
    {"grad": lambda g, dim, size, step: g.unfold(dim, size, step)},
)


def _roll(xp, x, shifts, dims):
    if dims is None:
        return xp.roll(x.reshape(-1), shifts[0]).reshape(x.shape)
    return xp.roll(x, shifts, axis=dims)


def _dims_arg(dims) -> tuple:
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        return tuple(dims[0])
    return tuple(dims)


@public
def flip(input, *dims, **kwargs):
    """Matches `torch.flip`: a copy with the order of `dims` reversed."""
    if kwargs:
        # `flip(x, dims=(0,))` is PyTorch's documented spelling.
        if set(kwargs) != {"dims"} or dims:
            bad = next(iter(set(kwargs) - {"dims"}), "dims")
            raise TypeError(f"flip() got an unexpected keyword argument '{bad}'")
        dims = (kwargs["dims"],)
    dims = normalize_dims(_dims_arg(dims), input._data.ndim)
    return apply(FLIP, (input,), {"dims": dims})


@public
def fliplr(input):
    """Matches `torch.fliplr`."""
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, 1)


@public
def flipud(input):
    """Matches `torch.flipud`."""
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, 0)


@public
def roll(input, shifts, dims=None):
    """Matches `torch.roll`: with no dims the flattened tensor is rolled."""
    shifts = as_ints(shifts)
    if dims is not None:
        dims = as_ints(dims)
    if dims is not None and len(shifts) != len(dims):
        raise RuntimeError(
            f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}"
        )
    if input._data.size == 0:  # PyTorch returns an empty tensor's copy before any dim check
        return apply(ROLL, (input,), {"shifts": (0,), "dims": None})
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(
                f"`shifts` required to be of size 1 when `dims` is not "
                f"specified, but got {len(shifts)}"
            )
        return apply(ROLL, (input,), {"shifts": shifts, "dims": None})
    if input._data.ndim == 0:
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    dims = tuple(wrap_dim(d, input._data.ndim) for d in dims)
    return apply(ROLL, (input,), {"shifts": shifts, "dims": dims})


@public(function=False)
def repeat(self, *repeats):
    """Matches `torch.Tensor.repeat`: tile the tensor `repeats[i]` times along dim i."""
    if not repeats:
        raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
    repeats = int_list("repeat", repeats, "repeats", 2)
    if len(repeats) < self._data.ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number "
            "of dimensions of tensor"
        )
    padded = (1,) * (len(repeats) - self._data.ndim) + self._data.shape
    new_shape(tuple(p * r for p, r in zip(padded, repeats)), self._data.itemsize)
    if self._data.size == 0:  # nothing to tile, and a negative count times 0 is 0
        repeats = tuple(max(r, 0) for r in repeats)
    return apply(REPEAT, (self,), {"repeats": repeats})


@public
def tile(input, dims):
    """Matches `torch.tile`: like `repeat`, with missing leading reps taken as 1."""
    dims = as_ints(dims)
    return repeat(input, (1,) * (input._data.ndim - len(dims)) + dims)


@public
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Matches `torch.repeat_interleave`: each element repeated, next to itself."""
    if repeats is None:  # torch.repeat_interleave(counts): the indices, each repeated
        counts = input._data
        return _tensor(np.repeat(np.arange(counts.shape[0]), counts))
    if dim is None:
        input, dim = input.reshape(-1), 0
    d = wrap_dim(dim, input._data.ndim)
    if isinstance(repeats, Tensor) and repeats._data.size != 1:
        length = input._data.shape[d] if input._data.ndim else 1
        if repeats._data.ndim != 1 or repeats._data.shape[0] != length:
            raise RuntimeError(
                f"repeats must have the same size as input along dim, but got "
                f"repeats.size(0) = {repeats._data.shape[0]} and input.size({d}) = {length}"
            )
        _check_repeats(repeats._data)
        index = np.repeat(np.arange(length), repeats._data)
        return input.index_select(d, _tensor(index))
    count = int(repeats)
    _check_repeats(np.asarray(count))
    if isinstance(repeats, Tensor):
        index = np.repeat(np.arange(input._data.shape[d] if input._data.ndim else 1), count)
        return input.index_select(d, _tensor(index))
    if input._data.ndim == 0:
        return input.reshape(1).expand(count).contiguous().view(count)
    # PyTorch expands a new dim after `d`, copies, and views: its node is ViewBackward0
    shape = input._data.shape
    wide = input.unsqueeze(d + 1).expand(*shape[: d + 1], count, *shape[d + 1 :])
    return wide.contiguous().view(*shape[:d], shape[d] * count, *shape[d + 1 :])


def _check_repeats(counts) -> None:
    if (counts < 0).any():
        raise RuntimeError(
            "repeats can not be negative" if counts.ndim else "Repeats must be non-negative"
        )


def _tensor(array):

    return from_numpy(np.ascontiguousarray(array, dtype=np.int64))


@public
def movedim(input, source, destination):
    """Matches `torch.movedim`: a permute view."""
    ndim = input._data.ndim
    src, dst = as_ints(source), as_ints(destination)
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({list(src)} dims) should "
            f"contain the same number of dims as destination ({list(dst)} dims)"
        )
    src = tuple(wrap_dim(d, ndim) for d in src)
    dst = tuple(wrap_dim(d, ndim) for d in dst)
    for name, dims in (("source", src), ("destination", dst)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({list(dims)})")
    order = [d for d in range(ndim) if d not in src]
    for s, d in sorted(zip(dst, src)):
        order.insert(s, d)
    return permute(input, tuple(order)) if ndim else input.alias()


moveaxis = public(movedim, name="moveaxis")


@public(function=False)
def unfold(self, dimension, size, step):
    """Matches `torch.Tensor.unfold`: a view of every window of `size`, `step` apart."""
    ndim = self._data.ndim
    d = wrap_dim(dimension, ndim)
    size, step = as_int(size), as_int(step)
    length = self._data.shape[d] if ndim else 1
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if size > length:
        raise RuntimeError(
            f"maximum size for tensor at dimension {d} is {length} but size is {size}"
        )
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return apply(UNFOLD, (self,), {"dim": d, "size": size, "step": step})
