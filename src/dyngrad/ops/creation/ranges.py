"""Range factories: arange, linspace, logspace, eye, with PyTorch's checks of their bounds."""

from __future__ import annotations

import math

import numpy as np

from ..._tensor import Tensor
from ...runtime import dtypes
from ...runtime.dtypes import defaults, from_numpy_dtype
from ...runtime.exact_math import fma32, fma64, libm
from ..table.arguments import fill_value, int_arg, invalid_combination, is_int, scalar_to
from ..table.record import replayable
from ..table.surface import public
from .factories import _leaf, _np_dtype, allocate


def _number(v):
    if isinstance(v, Tensor):
        return v._data.reshape(()).item() if v._data.size == 1 else v
    return v


def _range_dtype(dtype, values, kernel: str) -> dtypes.dtype:
    is_float = any(isinstance(v, float) for v in values)
    d = from_numpy_dtype(_np_dtype(dtype, defaults.float if is_float else dtypes.int64))
    if d is dtypes.bool_:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
    return d


def _check_bounds(start, end, step) -> None:
    # PyTorch validates the range in double precision before it converts to the dtype
    dstart, dend, dstep = float(start), float(end), float(step)
    if not (dstep > 0 or dstep < 0):
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(dstart) and math.isfinite(dend)):
        raise RuntimeError(f"unsupported range: {dstart:g} -> {dend:g}")
    if not ((dstep > 0 and dend >= dstart) or (dstep < 0 and dend <= dstart)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")


def _arange_size(start, end, step, d) -> int:
    if d is dtypes.int64:  # counted in int64 itself, after the conversion
        start, end, step = (int(scalar_to(v, d)) for v in (start, end, step))
        if step == 0:
            raise ValueError("step must be nonzero")
        sgn = (step > 0) - (step < 0)
        return int((end - start + step - sgn) / step)
    n = math.ceil((float(end) - float(start)) / float(step))
    if not 0 <= n <= 2**63:
        raise RuntimeError("invalid size, possible overflow?")
    if n == 2**63:  # passes PyTorch's check in double, then wraps in the cast to int64
        raise RuntimeError(
            f"IntArrayRef contains an int that cannot be represented as a SymInt: {-(2**63)}"
        )
    return n


@public
def arange(
    start,
    end=None,
    step=1,
    *,
    dtype=None,
    device=None,
    requires_grad=False,
    out=None,
    layout=None,
    pin_memory=False,
) -> Tensor:
    """Matches `torch.arange`: integer arguments give int64, any float the default dtype."""
    if end is None:
        start, end = 0, start
    return _arange(start, end, step, dtype, requires_grad, device)


@replayable  # See Note [Replayable sources]
def _arange(start, end, step, dtype, requires_grad, device) -> Tensor:
    start, end, step = (_number(v) for v in (start, end, step))
    d = _range_dtype(dtype, (start, end, step), "arange_cpu")
    _check_bounds(start, end, step)
    n = _arange_size(start, end, step, d)
    if d._category == 1:  # integer dtypes accumulate in int64
        start, end, step = (int(scalar_to(v, dtypes.int64)) for v in (start, end, step))
    array = allocate((n,), d.np, np.empty)
    work = np.int64 if d._category == 1 else np.float64
    array[...] = start + step * np.arange(n, dtype=work)
    return _leaf(array, requires_grad, device)


def _spaced(start, end, steps, d):
    """PyTorch's linspace points: from `start` for the first half, from `end` for the rest,
    in the dtype's own arithmetic (float64 for integer dtypes). PyTorch's compiled kernel
    fuses each point's multiply-add (start + step * i is one fma, rounded once) in float32,
    float64 and the integer dtypes' float64; its float16 does each step apart."""
    work = np.float64 if d._category == 1 else d.np.type
    start, end = work(scalar_to(start, d)), work(scalar_to(end, d))
    idx = np.arange(steps, dtype=work)
    if steps == 1:
        return np.full(1, start, work)
    with np.errstate(all="ignore"):
        step = (end - start) / work(steps - 1)
        fused = {np.float64: fma64, np.float32: fma32}.get(work)
        if fused is None or not np.isfinite(step):
            return np.where(idx < steps // 2, start + step * idx, end - step * (steps - 1 - idx))
        rising = fused(step, idx, start)
        falling = fused(-step, (steps - 1) - idx, end)
        return np.where(idx < steps // 2, rising, falling)


def _log_exponents(start, end, steps, d):
    """logspace's exponents: the ends and their difference in the dtype, then float64 steps
    from each end (PyTorch's kernel works in double from there, and does not fuse these
    multiply-adds as its linspace does)."""
    start, end = scalar_to(start, d), scalar_to(end, d)  # (both checked first, as PyTorch)
    if d._category == 1:  # C++ subtracts small integer types as int: no wrap
        start, end = int(fill_value(start, d)), int(fill_value(end, d))
    else:
        start, end = d.np.type(start), d.np.type(end)
    with np.errstate(all="ignore"):
        span = float(end - start)  # in the dtype, then double
    start, end = float(start), float(end)
    step = span / (steps - 1)
    idx = np.arange(steps, dtype=np.float64)
    return np.where(idx < steps // 2, start + step * idx, end - step * (steps - 1 - idx))


def _c_pow(base: float):
    # the C library's pow(base, x), as PyTorch calls it (NumPy's own rounds otherwise);
    # Python's raises where C returns inf or nan, so those few go to NumPy
    def power(x: float) -> float:
        try:
            return math.pow(base, x)
        except (OverflowError, ValueError):
            return float(np.power(base, x))

    return power


def _steps(fn: str, start, end, steps) -> int:
    try:
        n = int_arg(fn, "steps", 3, steps)
    except TypeError:
        raise invalid_combination(fn, (start, end, steps)) from None
    if n < 0:
        raise RuntimeError("number of steps must be non-negative")
    return n


@public
def linspace(
    start, end, steps, *, dtype=None, device=None, requires_grad=False, out=None, layout=None
) -> Tensor:
    """Matches `torch.linspace`."""
    n = _steps("linspace", start, end, steps)
    start, end = _number(start), _number(end)
    d = _range_dtype(dtype, (0.0,), "linspace_cpu")
    array = allocate((n,), d.np, np.empty)
    if n:
        array[...] = _spaced(start, end, n, d)
    return _leaf(array, requires_grad, device)


@public
def logspace(
    start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False
) -> Tensor:
    """Matches `torch.logspace`."""
    n = _steps("logspace", start, end, steps)
    start, end = _number(start), _number(end)
    d = _range_dtype(dtype, (0.0,), "logspace_cpu")
    array = allocate((n,), d.np, np.empty)
    with np.errstate(all="ignore"):
        if n == 1:  # PyTorch fills base ** start in double, without converting start
            array[...] = np.power(float(base), float(start))
        elif n and d._category > 2:
            array[...] = np.power(float(base), _spaced(start, end, n, d))
        elif n:
            array[...] = libm(_c_pow(float(base)), _log_exponents(start, end, n, d))
    return _leaf(array, requires_grad, device)


_SQUARE = object()  # `eye(n)`; an explicit `m=None` is refused, as PyTorch does


@public
def eye(
    n, m=_SQUARE, *, dtype=None, device=None, requires_grad=False, out=None, layout=None
) -> Tensor:
    """Matches `torch.eye`."""
    if m is _SQUARE:
        n = m = int_arg("eye", "n", 1, n)
    else:
        if not (is_int(n) and is_int(m)):
            raise invalid_combination("eye", (n, m))
        n, m = int_arg("eye", "n", 1, n), int_arg("eye", "m", 2, m)
    for name, size in (("n", n), ("m", m)):
        if size < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {size}")
    return _eye(n, m, dtype, requires_grad, device)


@replayable  # See Note [Replayable sources]
def _eye(n: int, m: int, dtype, requires_grad, device) -> Tensor:
    make = lambda s, t: np.eye(s[0], s[1], dtype=t)
    return _leaf(allocate((n, m), _np_dtype(dtype), make), requires_grad, device)
