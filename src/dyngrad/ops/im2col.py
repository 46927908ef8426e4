"""im2col for convolution and pooling: window views, column matrices and col2im.

# Note [Convolution layout]
# Columns keep the output positions last, (N, G, Cg*K, P), so every GEMM below is a stack of
# (Og, Cg*K) @ (Cg*K, P) products over (N, G) whose result is already in (N, C, *spatial)
# order: no transposed copy of an activation-sized array anywhere. The stacked products
# stay small enough for BLAS to run each on one thread, which on a busy machine beats one
# large multi-threaded GEMM followed by a transpose.
"""

from __future__ import annotations

import threading

import numpy as np

__all__ = ["columns", "col2im_shifted", "col2im_strided", "tap_columns", "windows"]


def _pad(xp, x, padding):
    """Zero-pad the spatial dims: one allocation and one copy, cheaper than `xp.pad`."""
    if not any(lo or hi for lo, hi in padding):
        return x
    shape = x.shape[:2] + tuple(s + lo + hi for s, (lo, hi) in zip(x.shape[2:], padding))
    out = xp.zeros(shape, dtype=x.dtype)
    out[(Ellipsis,) + tuple(slice(lo, lo + s) for s, (lo, _) in zip(x.shape[2:], padding))] = x
    return out


def windows(xp, x, kernel, stride, padding, dilation, out_size=None):
    """(N, C, *out, *kernel) view of the padded input under each kernel position."""
    nd = len(kernel)
    x = _pad(xp, x, padding)
    span = tuple(d * (k - 1) + 1 for d, k in zip(dilation, kernel))
    win = np.lib.stride_tricks.sliding_window_view(x, span, axis=tuple(range(2, 2 + nd)))
    out_len = out_size or (None,) * nd
    return win[
        (slice(None), slice(None))
        + tuple(slice(0, None if o is None else o * s, s) for s, o in zip(stride, out_len))
        + tuple(slice(None, None, d) for d in dilation)
    ]


class _Scratch(threading.local):
    """Each thread's scratch buffer (ops may run on several threads at once)."""

    buffer = None


_SCRATCH = _Scratch()
_SCRATCH_LIMIT = 1 << 25


def _scratch(xp, shape, dtype):
    """A reused per-thread buffer for an op's largest temporary (the column matrix).

    Fresh large arrays come from the OS page by page on every call; reusing one buffer saves
    those page faults, which cost as much as the GEMM itself on layers of MNIST size.
    """
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape)) * dtype.itemsize
    if xp is not np or nbytes > _SCRATCH_LIMIT:
        return xp.empty(shape, dtype)
    buffer = _SCRATCH.buffer
    if buffer is None or buffer.nbytes < nbytes:
        buffer = _SCRATCH.buffer = np.empty(nbytes, np.uint8)
    return buffer[:nbytes].view(dtype).reshape(shape)


def columns(xp, win, groups):
    """im2col: (N, G, Cg*prod(kernel), prod(out)) from the window view (one copy)."""
    n, c = win.shape[:2]
    nd = (win.ndim - 2) // 2
    out, kernel = win.shape[2 : 2 + nd], win.shape[2 + nd :]
    order = (0, 1) + tuple(range(2 + nd, 2 + 2 * nd)) + tuple(range(2, 2 + nd))
    cols = _scratch(xp, (n, c) + kernel + out, win.dtype)
    cols[...] = win.transpose(order)
    return cols.reshape(n, groups, -1, int(np.prod(out))), out


def tap_columns(xp, grad, weight, groups):
    """(N, C, K, P): what each output position sends to each input channel and kernel tap."""
    n, oc = grad.shape[:2]
    w = weight.reshape(groups, oc // groups, -1).transpose(0, 2, 1)
    g = grad.reshape(n, groups, oc // groups, -1)
    cols = _scratch(xp, (n, groups) + w.shape[1:2] + g.shape[-1:], xp.result_type(w, g))
    xp.matmul(w, g, out=cols)  # (N, G, Cg*K, P)
    return cols.reshape(n, groups * weight.shape[1], -1, g.shape[-1])


def col2im_strided(xp, grad, weight, padded, stride, dilation, groups):
    """The padded input's gradient, any stride: one strided addition per kernel tap."""
    out, kernel = grad.shape[2:], weight.shape[2:]
    cols = tap_columns(xp, grad, weight, groups)
    cols = cols.reshape(cols.shape[:2] + kernel + out)
    result = xp.zeros(cols.shape[:2] + padded, dtype=cols.dtype)
    every = (slice(None), slice(None))
    for tap in np.ndindex(*kernel):
        region = tuple(
            slice(k * d, k * d + s * (o - 1) + 1, s)
            for k, d, s, o in zip(tap, dilation, stride, out)
        )
        result[every + region] += cols[every + tap]
    return result


# Note [Shifted col2im]
# With stride 1, lay the gradient on a grid with the padded input's row pitch (zeros past
# each row's end): every kernel tap's contribution then lands on one contiguous, shifted
# slice of the flat padded input, and col2im is K long additions instead of K strided ones
# over short rows. The grid's extra positions hold exact zeros once multiplied by a finite
# weight (an infinite one would make NaN there, hence the strided form for it).
def col2im_shifted(xp, grad, weight, padded, dilation, groups):
    """The padded input's gradient for stride 1; see Note [Shifted col2im]."""
    n, oc = grad.shape[:2]
    out, kernel = grad.shape[2:], weight.shape[2:]
    grid = xp.zeros((n, oc, out[0]) + padded[1:], dtype=grad.dtype)
    grid[(slice(None),) * 3 + tuple(slice(0, o) for o in out[1:])] = grad
    cols = tap_columns(xp, grid, weight, groups)  # (N, C, K, out[0] * pitch[0])
    pitch = [int(np.prod(padded[i + 1 :])) for i in range(len(padded))]
    plane, length = int(np.prod(padded)), cols.shape[-1]
    # the last taps reach past the plane by less than one row: room for them at the end
    result = xp.zeros(cols.shape[:2] + (plane + pitch[0],), dtype=cols.dtype)
    for t, tap in enumerate(np.ndindex(*kernel)):
        start = sum(k * d * p for k, d, p in zip(tap, dilation, pitch))
        result[:, :, start : start + length] += cols[:, :, t]
    return result[:, :, :plane].reshape(cols.shape[:2] + padded)
