"""`torch.testing.assert_close` and the deprecated `assert_allclose`, with PyTorch's messages."""

from __future__ import annotations

import cmath
import warnings
from collections.abc import Mapping, Sequence

import numpy as np

from .._tensor import Tensor
from ..ops.creation.factories import as_tensor, tensor
from ..ops.elementwise.compare import isclose
from ..runtime.dtypes import (
    bfloat16,
    complex64,
    complex128,
    float16,
    float32,
    float64,
    int64,
    promote_types,
)

__all__ = ["assert_close", "assert_allclose", "default_tolerances"]

# {dtype: (rtol, atol)}; every other dtype compares exactly.
_DTYPE_PRECISIONS = {
    float16: (0.001, 1e-5),
    bfloat16: (0.016, 1e-5),
    float32: (1.3e-6, 1e-5),
    float64: (1e-7, 1e-7),
    complex64: (1.3e-6, 1e-5),
    complex128: (1e-7, 1e-7),
}
_NUMBER_DTYPES = {int: int64, float: float64, complex: complex128}
_BOOLS = (bool, np.bool_)
_NUMBERS = (int, float, complex, np.number)


class _MismatchError(Exception):
    """A failed comparison: the exception type to raise, its message, and the item's path."""

    def __init__(self, kind: type, message: str, path: tuple = ()):
        super().__init__(message)
        self.kind, self.message, self.path = kind, message, path

    def to_error(self, msg=None) -> Exception:
        if isinstance(msg, str):
            return self.kind(msg)
        message = self.message
        if self.path:
            message += f"\n\nThe failure occurred for item {''.join(str([p]) for p in self.path)}"
        return self.kind(msg(message) if callable(msg) else message)


def default_tolerances(*inputs, dtype_precisions=None) -> tuple[float, float]:
    """The loosest (rtol, atol) of the inputs' dtypes (tensors or dtypes)."""
    precisions = dtype_precisions or _DTYPE_PRECISIONS
    pairs = [precisions.get(x.dtype if isinstance(x, Tensor) else x, (0.0, 0.0)) for x in inputs]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _tolerances(*dtypes, rtol, atol, path) -> tuple[float, float]:
    if (rtol is None) != (atol is None):
        raise _MismatchError(
            ValueError,
            "Both 'rtol' and 'atol' must be either specified or omitted, but got no "
            f"{'rtol' if rtol is None else 'atol'}.",
            path,
        )
    if rtol is not None:
        return rtol, atol
    return default_tolerances(*dtypes)


def _mismatch_message(identifier, extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol):
    """PyTorch's layout: a header, the extra line, then the absolute and relative differences."""
    equality = rtol == 0 and atol == 0

    def line(kind: str, diff, idx, tol) -> str:
        text = f"{kind.title()} difference: {diff}"
        if idx is not None:
            text = f"Greatest {kind} difference: {diff} at index {idx}"
        return text + ("" if equality else f" (up to {tol} allowed)") + "\n"

    message = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        message += f"{extra.strip()}\n"
    message += line("absolute", abs_diff, abs_idx, atol)
    message += line("relative", rel_diff, rel_idx, rtol)
    return message.strip()


def _scalar_message(actual, expected, rtol, atol) -> str:
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    extra = f"Expected {expected} but got {actual}."
    return _mismatch_message("Scalars", extra, abs_diff, None, atol, rel_diff, None, rtol)


def _unravel(flat_index: int, shape) -> tuple:
    index = []
    for size in reversed(shape):
        flat_index, rest = divmod(flat_index, size)
        index.append(rest)
    return tuple(reversed(index))


def _tensor_message(actual: Tensor, expected: Tensor, matches: Tensor, rtol, atol) -> str:
    """Mismatch count, then the greatest differences among mismatched elements, in the dtype."""
    total = matches.numel()
    mismatched = total - int(matches.sum())
    extra = f"Mismatched elements: {mismatched} / {total} ({mismatched / total:.1%})"
    actual_flat, expected_flat = actual.flatten(), expected.flatten()
    matches_flat = matches.flatten()
    if not (actual.dtype.is_floating_point or actual.dtype.is_complex):
        actual_flat, expected_flat = actual_flat.to(int64), expected_flat.to(int64)
    abs_diff = (actual_flat - expected_flat).abs()
    abs_diff[matches_flat] = 0
    max_abs, abs_at = abs_diff.max(0)
    rel_diff = abs_diff / expected_flat.abs()
    rel_diff[matches_flat] = 0
    max_rel, rel_at = rel_diff.max(0)
    return _mismatch_message(
        "Tensor-likes",
        extra,
        max_abs.item(),
        _unravel(int(abs_at), matches.shape),
        atol,
        max_rel.item(),
        _unravel(int(rel_at), matches.shape),
        rtol,
    )


# ---- comparisons of two leaves: each is built (checking its inputs) and later run ----------


def _none_comparison(actual, expected, path):
    def compare():
        if not (actual is None and expected is None):
            raise _MismatchError(AssertionError, f"None mismatch: {actual} is not {expected}", path)

    return compare


def _bool_comparison(actual, expected, path):
    actual, expected = bool(actual), bool(expected)

    def compare():
        if actual is not expected:
            message = f"Booleans mismatch: {actual} is not {expected}"
            raise _MismatchError(AssertionError, message, path)

    return compare


def _number_comparison(actual, expected, path, rtol, atol, equal_nan, check_dtype, **_):
    actual, expected = (x.item() if isinstance(x, np.number) else x for x in (actual, expected))
    dtypes = (_NUMBER_DTYPES.get(type(x), int64) for x in (actual, expected))  # bool: int's
    rtol, atol = _tolerances(*dtypes, rtol=rtol, atol=atol, path=path)

    def compare():
        if check_dtype and type(actual) is not type(expected):
            message = f"The (d)types do not match: {type(actual)} != {type(expected)}."
            raise _MismatchError(AssertionError, message, path)
        if actual == expected or equal_nan and cmath.isnan(actual) and cmath.isnan(expected):
            return
        diff = abs(actual - expected)
        if cmath.isfinite(diff) and diff <= atol + rtol * abs(expected):
            return
        raise _MismatchError(AssertionError, _scalar_message(actual, expected, rtol, atol), path)

    return compare


def _as_tensors(actual, expected, allow_subclasses: bool):
    """Both inputs as Tensors when their types are related (as PyTorch pairs them), else None."""
    if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
        return None
    if not allow_subclasses and type(actual) is not type(expected):
        return None
    try:
        return tuple(x if isinstance(x, Tensor) else as_tensor(x) for x in (actual, expected))
    except Exception:
        return None


def _check_attributes(actual, expected, path, check_device, check_dtype, check_stride) -> None:
    checks = [("shape", actual.shape, expected.shape)]
    if check_stride:
        checks.append(("stride()", actual.stride(), expected.stride()))
    if check_device:
        checks.append(("device", actual.device, expected.device))
    if check_dtype:
        checks.append(("dtype", actual.dtype, expected.dtype))
    for name, a, e in checks:
        if a != e:
            message = f"The values for attribute '{name}' do not match: {a} != {e}."
            raise _MismatchError(AssertionError, message, path)


def _tensor_comparison(actual, expected, path, rtol, atol, equal_nan, **checks):
    rtol, atol = _tolerances(actual, expected, rtol=rtol, atol=atol, path=path)

    def compare():
        _check_attributes(actual, expected, path, **checks)
        a, e = actual.detach(), expected.detach()
        if a.device != e.device:
            a, e = a.cpu(), e.cpu()
        if a.dtype != e.dtype:
            dtype = promote_types(a.dtype, e.dtype)
            a, e = a.to(dtype), e.to(dtype)
        matches = isclose(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan)
        if bool(matches.all()):
            return
        if a.dim() == 0:
            message = _scalar_message(a.item(), e.item(), rtol, atol)
        else:
            message = _tensor_message(a, e, matches, rtol, atol)
        raise _MismatchError(AssertionError, message, path)

    return compare


def _leaf_comparison(actual, expected, path, options: dict):
    if actual is None or expected is None:
        return _none_comparison(actual, expected, path)
    if isinstance(actual, _BOOLS) and isinstance(expected, _BOOLS):
        return _bool_comparison(actual, expected, path)
    if isinstance(actual, _NUMBERS) and isinstance(expected, _NUMBERS):
        return _number_comparison(actual, expected, path, **options)
    tensors = _as_tensors(actual, expected, options["allow_subclasses"])
    if tensors is not None:
        tensor_options = {k: v for k, v in options.items() if k != "allow_subclasses"}
        return _tensor_comparison(*tensors, path, **tensor_options)
    raise _MismatchError(
        TypeError,
        "No comparison pair was able to handle inputs of type "
        f"{type(actual)} and {type(expected)}.",
        path,
    )


def _comparisons(actual, expected, path: tuple, options: dict) -> list:
    """One comparison per pair of leaves, recursing through sequences and mappings alike."""
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            message = f"The length of the sequences mismatch: {len(actual)} != {len(expected)}"
            raise _MismatchError(AssertionError, message, path)
        pairs = zip(range(len(actual)), actual, expected)
        return [c for i, a, e in pairs for c in _comparisons(a, e, (*path, i), options)]
    if isinstance(actual, Mapping) and isinstance(expected, Mapping):
        keys, expected_keys = set(actual.keys()), set(expected.keys())
        if keys != expected_keys:
            raise _MismatchError(
                AssertionError,
                "The keys of the mappings do not match:\n"
                f"Missing keys in the actual mapping: {sorted(expected_keys - keys)}\n"
                f"Additional keys in the actual mapping: {sorted(keys - expected_keys)}",
                path,
            )
        try:  # a deterministic order where the keys allow one
            keys = sorted(keys)
        except TypeError:
            pass
        return [c for k in keys for c in _comparisons(actual[k], expected[k], (*path, k), options)]
    return [_leaf_comparison(actual, expected, path, options)]


def _is_sequence(x) -> bool:
    return isinstance(x, Sequence) and not isinstance(x, str)


def assert_close(
    actual,
    expected,
    *,
    allow_subclasses: bool = True,
    rtol: float | None = None,
    atol: float | None = None,
    equal_nan: bool = False,
    check_device: bool = True,
    check_dtype: bool = True,
    check_layout: bool = True,
    check_stride: bool = False,
    msg=None,
) -> None:
    """Matches `torch.testing.assert_close`: |actual - expected| <= atol + rtol * |expected|."""
    __tracebackhide__ = True
    options = dict(
        allow_subclasses=allow_subclasses,
        rtol=rtol,
        atol=atol,
        equal_nan=equal_nan,
        check_device=check_device,
        check_dtype=check_dtype,
        check_stride=check_stride,
    )
    try:
        comparisons = _comparisons(actual, expected, (), options)
    except _MismatchError as mismatch:  # a malformed call: PyTorch ignores `msg` here
        raise mismatch.to_error() from None
    for compare in comparisons:
        try:
            compare()
        except _MismatchError as mismatch:
            raise mismatch.to_error(msg) from None


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg="") -> None:
    """Matches the deprecated `torch.testing.assert_allclose`: looser defaults, any dtypes."""
    warnings.warn(
        "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a "
        "future release. Please use `torch.testing.assert_close()` instead. You can find "
        "detailed upgrade instructions in https://github.com/pytorch/pytorch/issues/61844.",
        FutureWarning,
        stacklevel=2,
    )
    if not isinstance(actual, Tensor):
        actual = tensor(actual)
    if not isinstance(expected, Tensor):
        expected = tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        precisions = {float16: (1e-3, 1e-3), float32: (1e-4, 1e-5), float64: (1e-5, 1e-8)}
        rtol, atol = default_tolerances(actual, expected, dtype_precisions=precisions)
    assert_close(
        actual,
        expected,
        rtol=rtol,
        atol=atol,
        equal_nan=equal_nan,
        check_device=True,
        check_dtype=False,
        check_stride=False,
        msg=msg or None,
    )
