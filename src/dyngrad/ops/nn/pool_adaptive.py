"""Adaptive pooling (1-d, 2-d, 3-d): an output-sized grid of windows over the input, averaged
(AdaptiveAvgPool3DBackward0) or reduced to their maximum and its flat index
(AdaptiveMaxPool3DBackward0). 1-d pooling runs the 2-d op on an unsqueezed input, as PyTorch.
"""

from __future__ import annotations

import itertools

import numpy as np

from ..table.record import apply
from ..table.registry import defop
from .conv import _tuple
from .pool import index_pool_ops


def _bounds(size: int, out: int, i: int) -> tuple:
    # PyTorch's window i of `out` over `size`: [floor(i size / out), ceil((i + 1) size / out))
    return (i * size) // out, -((-(i + 1) * size) // out)


def _adaptive_matrix(xp, size: int, out: int, dtype):
    """Row i averages input[floor(i*size/out) : ceil((i+1)*size/out)]."""
    m = np.zeros((out, size))
    for i in range(out):
        start, end = _bounds(size, out, i)
        m[i, start:end] = 1.0 / (end - start)
    return xp.asarray(m, dtype=dtype)


def _per_axis(xp, x, nd, matrices):
    # contract each of the last nd axes with its matrix's columns: batched matmuls with the
    # axis second to last (moved there for 3-d), the last axis times the transpose
    for i, m in enumerate(matrices):
        axis = x.ndim - nd + i
        if axis == x.ndim - 1:
            x = xp.matmul(x, m.T)
        else:
            x = xp.moveaxis(xp.matmul(m, xp.moveaxis(x, axis, -2)), -2, axis)
    return x


def _adaptive_avg_fwd(xp, x, *, output_size):
    nd = len(output_size)
    sizes = zip(x.shape[-nd:], output_size)
    return _per_axis(xp, x, nd, [_adaptive_matrix(xp, s, o, x.dtype) for s, o in sizes])


def _adaptive_avg_ops(nd: int):
    def backward_fwd(xp, grad, *, x_shape):
        sizes = zip(x_shape[-nd:], grad.shape[-nd:])
        return _per_axis(xp, grad, nd, [_adaptive_matrix(xp, s, o, grad.dtype).T for s, o in sizes])

    backward = defop(
        f"adaptive_avg_pool{nd}d_backward",
        backward_fwd,
        {
            "grad": lambda g, grad_shape: apply(
                forward, (g,), {"output_size": tuple(grad_shape[-nd:])}
            )
        },
        node=f"AdaptiveAvgPool{nd}DBackwardBackward0",
    )
    forward = defop(
        f"adaptive_avg_pool{nd}d",
        _adaptive_avg_fwd,
        {"x": lambda g, x_shape: apply(backward, (g,), {"x_shape": x_shape})},
        node=f"AdaptiveAvgPool{nd}DBackward0",
    )
    return forward


def _adaptive_max_fwd(xp, x, *, output_size):
    nd = len(output_size)
    spatial, lead = x.shape[-nd:], x.shape[:-nd]
    values = xp.empty(lead + output_size, dtype=x.dtype)
    indices = xp.empty(lead + output_size, dtype=xp.int64)
    for position in itertools.product(*(range(o) for o in output_size)):
        bounds = [_bounds(s, o, i) for s, o, i in zip(spatial, output_size, position)]
        window = x[(Ellipsis,) + tuple(slice(a, b) for a, b in bounds)]
        flat = window.reshape(lead + (int(np.prod(window.shape[-nd:])),))
        # the first maximum, or the first nan (max propagates nan, as PyTorch's)
        pick = xp.argmax(xp.where(xp.isnan(flat), xp.inf, flat), axis=-1)
        values[(Ellipsis,) + position] = xp.take_along_axis(flat, pick[..., None], -1)[..., 0]
        coords = xp.unravel_index(pick, window.shape[-nd:])
        index = 0
        for size, (start, _), c in zip(spatial, bounds, coords):
            index = index * size + start + c
        indices[(Ellipsis,) + position] = index
    return values, indices


def _adaptive_max_formula(scatter):
    return lambda g, out, x_shape: scatter(g[0], out[1], x_shape)


# the rows by the number of spatial dims: PyTorch names each dimension's nodes apart
ADAPTIVE_AVG_POOL = {nd: _adaptive_avg_ops(nd) for nd in (2, 3)}
ADAPTIVE_MAX_POOL = {
    nd: index_pool_ops(
        f"adaptive_max_pool{nd}d",
        f"AdaptiveMaxPool{nd}DBackward0",
        nd,
        _adaptive_max_fwd,
        _adaptive_max_formula,
    ).forward
    for nd in (2, 3)
}


# ---- the functional forms: PyTorch's checks of the sizes, in its order -------------------------


def _float_size(fn: str) -> TypeError:
    # PyTorch's argument parser, given a float for a 1-d pool's output_size
    return TypeError(
        f"{fn}(): argument 'output_size' (position 2) must be tuple of ints, not float"
    )


def adaptive_output_size(fn: str, input, output_size, nd: int) -> tuple:
    """`output_size` as PyTorch's Python layer reads it (`_list_with_default`): an int, or a
    sequence whose Nones keep the input's sizes."""
    if isinstance(output_size, int):
        output_size = (output_size,) * nd
    elif isinstance(output_size, float):
        if nd != 1:  # the 2-d and 3-d forms take len() of it in Python first
            raise TypeError("object of type 'float' has no len()")
        raise _float_size(fn)
    elif input._data.ndim <= len(output_size):  # len() is Python's TypeError for None, float
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    for i, o in enumerate(output_size):
        if isinstance(o, float):  # PyTorch's argument parser words the first element apart
            raise TypeError(
                f"{fn}(): argument 'output_size' (position 2) must be tuple of ints, but found "
                "element of type float at pos 0"
                if i == 0
                else f"{fn}(): argument 'output_size' failed to unpack the object at pos 2 with "
                'error "type must be tuple of ints,but got float"'
            )
    shape = input._data.shape
    sizes = tuple(
        shape[-len(output_size) + i] if o is None else o for i, o in enumerate(output_size)
    )
    if len(sizes) != nd:
        raise RuntimeError(
            f"{fn}(): internal error: output_size.size() must be {nd}"
            if "max" in fn
            else f"{fn}: output_size must be {nd}"
        )
    return sizes


def check_nonempty(fn: str, shape: tuple, first: int) -> None:
    for d in range(first, len(shape)):
        if shape[d] == 0:
            raise RuntimeError(
                f"{fn}(): Expected input to have non-zero size for non-batch "
                f"dimensions, but input has sizes {list(shape)} with dimension "
                f"{d} being empty"
            )


def _check_rank(fn: str, shape: tuple, nd: int, colon: str) -> None:
    if len(shape) not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"{fn}(): Expected {nd + 1}D or {nd + 2}D tensor, but got{colon} {list(shape)}"
        )


def _float_only(kernel: str, input) -> None:
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype._legacy}'")


def _adaptive_avg_pool(input, output_size, nd: int):
    fn = f"adaptive_avg_pool{nd}d"
    size = adaptive_output_size(fn, input, output_size, nd)
    shape = input._data.shape
    _check_rank(fn, shape, nd, "")
    if min(size) < 0:
        shown = ", ".join(map(str, size)) if nd == 2 else f"{size[0]}, {size[1]},{size[2]}"
        raise RuntimeError(
            f"{fn}: elements of output_size must be greater than or equal to 0 but "
            f"received {{{shown}}}"
        )
    check_nonempty(fn, shape, len(shape) - 2 if nd == 2 else 1)
    _float_only(fn if nd == 2 else f"{fn}_cpu", input)
    if size == (1,) * nd:
        return input.mean(tuple(range(-1, -nd - 1, -1)), keepdim=True)
    return apply(ADAPTIVE_AVG_POOL[nd], (input,), {"output_size": size})


def _adaptive_max_pool(input, output_size, return_indices, nd: int):
    fn = f"adaptive_max_pool{nd}d"
    size = adaptive_output_size(fn, input, output_size, nd)
    shape = input._data.shape
    _check_rank(fn, shape, nd, ":")
    if min(size) < 0:
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {min(size)}: "
            f"{list(shape[:-nd] + size)}"
        )
    check_nonempty(fn, shape, 1)
    _float_only(fn if nd == 2 else f"{fn}_cpu", input)
    values, indices = apply(ADAPTIVE_MAX_POOL[nd], (input,), {"output_size": size})
    return (values, indices) if return_indices else values


def _check_1d(fn: str, input) -> None:
    if input._data.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input._data.ndim}-dimensional tensor for "
            f"argument #1 'self' (while checking arguments for {fn})"
        )


def adaptive_avg_pool1d(input, output_size):
    """Matches `torch.nn.functional.adaptive_avg_pool1d`: the 2-d op on an unsqueezed input."""
    size = adaptive_output_size("adaptive_avg_pool1d", input, output_size, 1)[0]
    _check_1d("adaptive_avg_pool1d", input)
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, size)).squeeze(-2)


def adaptive_avg_pool2d(input, output_size):
    """Matches `torch.nn.functional.adaptive_avg_pool2d`; a 1x1 output is a mean, as in torch."""
    return _adaptive_avg_pool(input, output_size, 2)


def adaptive_avg_pool3d(input, output_size):
    """Matches `torch.nn.functional.adaptive_avg_pool3d` (AdaptiveAvgPool3DBackward0)."""
    return _adaptive_avg_pool(input, output_size, 3)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Matches `torch.nn.functional.adaptive_max_pool1d`."""
    if input._data.ndim not in (2, 3):
        raise RuntimeError(
            f"adaptive_max_pool1d(): Expected 2D or 3D tensor, but got: {list(input._data.shape)}"
        )
    if isinstance(output_size, float):
        raise _float_size("adaptive_max_pool1d")
    size = _tuple(output_size, 1)[0]
    values, indices = adaptive_max_pool2d(input.unsqueeze(-2), (1, size), return_indices=True)
    values, indices = values.squeeze(-2), indices.squeeze(-2)
    return (values, indices) if return_indices else values


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Matches `torch.nn.functional.adaptive_max_pool2d` (and `..._with_indices`)."""
    return _adaptive_max_pool(input, output_size, return_indices, 2)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Matches `torch.nn.functional.adaptive_max_pool3d` (AdaptiveMaxPool3DBackward0)."""
    return _adaptive_max_pool(input, output_size, return_indices, 3)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """Matches `torch.nn.functional.adaptive_max_pool1d_with_indices`: (values, indices)."""
    return adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """Matches `torch.nn.functional.adaptive_max_pool2d_with_indices`: (values, indices)."""
    return adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """Matches `torch.nn.functional.adaptive_max_pool3d_with_indices`: (values, indices)."""
    return adaptive_max_pool3d(input, output_size, True)


__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "adaptive_max_pool3d",
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d_with_indices",
]
