"""im2col for convolution and pooling: window views, column matrices and col2im.

# Note [Convolution layout]
# Columns keep the output positions last, (N, G, Cg*K, P), so every GEMM below is a stack of
# (Og, Cg*K) @ (Cg*K, P) products over (N, G) whose result is already in (N, C, *spatial)
# order: no transposed copy of an activation-sized array anywhere. The stacked products
# stay small enough for BLAS to run each on one thread, which on a busy machine beats one
# large multi-threaded GEMM followed by a transpose. The stride-1 col2im is the exception (see
# Note [Channel-major col2im]): its per-sample form spends as long on strided additions over
# short rows as on the GEMM, more than one large GEMM and two transposed copies cost.
"""

from __future__ import annotations

import threading

import numpy as np

__all__ = ["columns", "col2im_slots", "col2im_strided", "scratch", "tap_columns", "windows"]


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


def scratch(xp, shape, dtype):
    """A reused per-thread buffer for an op's largest temporary (columns, pooling taps).

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
    cols = scratch(xp, (n, c) + kernel + out, win.dtype)
    cols[...] = win.transpose(order)
    return cols.reshape(n, groups, c // groups * int(np.prod(kernel)), int(np.prod(out))), out


def tap_columns(xp, grad, weight, groups):
    """(N, C, K, P): what each output position sends to each input channel and kernel tap."""
    n, oc = grad.shape[:2]
    w = weight.reshape(groups, oc // groups, -1).transpose(0, 2, 1)
    g = grad.reshape(n, groups, oc // groups, int(np.prod(grad.shape[2:])))
    cols = scratch(xp, (n, groups) + w.shape[1:2] + g.shape[-1:], xp.result_type(w, g))
    xp.matmul(w, g, out=cols)  # (N, G, Cg*K, P)
    return cols.reshape(n, groups * weight.shape[1], int(np.prod(weight.shape[2:])), g.shape[-1])


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


# Note [Channel-major col2im]
# With stride 1, give each sample's output gradient a slot the size of the padded input, zeros
# around it, channels first: (C, N * plane). One GEMM then yields every kernel tap's
# contribution on that flat grid, and each tap lands on one contiguous slice of the flat
# padded input gradient, shifted by the tap's offset: col2im is K long additions instead of K
# strided ones over short rows, and the GEMM is one large product. From a real position a tap
# never leaves its slot (that is the padded geometry); from the zeros around it a tap may
# reach the next slot, adding exact zeros once multiplied by a finite weight (an infinite one
# would make NaN there, hence the strided form for it).
def col2im_slots(xp, grad, weight, padded, dilation, groups):
    """The padded input's gradient for stride 1; see Note [Channel-major col2im]."""
    n, oc = grad.shape[:2]
    out, kernel = grad.shape[2:], weight.shape[2:]
    taps, cg, length = int(np.prod(kernel)), weight.shape[1], n * int(np.prod(padded))
    pitch = [int(np.prod(padded[i + 1 :])) for i in range(len(padded))]
    spatial = tuple(range(2, grad.ndim))
    slots = xp.zeros((oc, n) + padded, dtype=grad.dtype)
    slots[(slice(None),) * 2 + tuple(slice(0, o) for o in out)] = grad.transpose((1, 0) + spatial)
    # per group, rows ordered (tap, input channel): each tap's rows are one (Cg, N * plane) block
    w = weight.reshape(groups, oc // groups, cg, taps).transpose(0, 3, 2, 1)
    w = w.reshape(groups, taps * cg, oc // groups)
    cols = scratch(xp, (groups, taps, cg, length), xp.result_type(w, slots))
    slots = slots.reshape(groups, oc // groups, length)
    xp.matmul(w, slots, out=cols.reshape(groups, taps * cg, length))
    reach = sum((k - 1) * d * p for k, d, p in zip(kernel, dilation, pitch))
    result = xp.zeros((groups, cg, length + reach), dtype=cols.dtype)
    for t, tap in enumerate(np.ndindex(*kernel)):
        start = sum(k * d * p for k, d, p in zip(tap, dilation, pitch))
        result[:, :, start : start + length] += cols[:, t]
    result = result[:, :, :length].reshape((groups * cg, n) + padded)
    return result.transpose((1, 0) + spatial)
