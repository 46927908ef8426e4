"""PyTorch's argument rules for torch.fft: `norm=` strings, dims and sizes, dtype promotion,
and the trimming and zero-padding of the input to the requested sizes."""

from __future__ import annotations

from ...runtime import dtypes
from ..nn.conv import constant_pad
from ..shape.indexing import narrow
from ..shape.reshaping import wrap_dim
from ..table.arguments import as_int

__all__ = ["normalization", "wrap", "shape_and_dims", "resize", "promote", "check_size"]

_NONE, _BY_ROOT_N, _BY_N = 0, 1, 2  # See Note [FFT normalization]


def normalization(norm, forward: bool) -> int:
    """The kernel's normalization for `norm=` on a transform in this direction."""
    if norm is None or norm == "backward":
        return _NONE if forward else _BY_N
    if norm == "forward":
        return _BY_N if forward else _NONE
    if norm == "ortho":
        return _BY_ROOT_N
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def wrap(dim, input) -> int:
    """One dim, wrapped as PyTorch's FFTs do (a 0-d tensor has no dim to transform)."""
    ndim = input._data.ndim
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return wrap_dim(dim, ndim)


def check_size(n: int) -> int:
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return n


def shape_and_dims(input, s, dim) -> tuple[list, list]:
    """The transformed sizes and dims of an n-d FFT from `s=` and `dim=`, as PyTorch's
    canonicalize_fft_shape_and_dim_args: `s` alone takes the last len(s) dims, -1 in `s` is the
    input's size, and neither means every dim."""
    ndim, sizes = input._data.ndim, input._data.shape
    dims = None
    if dim is not None:
        dims = [wrap(d, input) for d in ((dim,) if isinstance(dim, int) else dim)]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        s = [as_int(n) for n in ((s,) if isinstance(s, int) else s)]
        if dims is not None and len(dims) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > ndim:
            raise RuntimeError(
                f"Got shape with {len(s)} values but input tensor only has {ndim} dimensions."
            )
        if dims is None:
            dims = list(range(ndim - len(s), ndim))
        shape = [sizes[d] if n == -1 else n for n, d in zip(s, dims)]
    elif dims is None:
        dims, shape = list(range(ndim)), list(sizes)
    else:
        shape = [sizes[d] for d in dims]
    for n in shape:
        check_size(n)
    return shape, dims


def resize(x, dims, shape):
    """`x` trimmed (one slice per dim, in `dims`' order) and zero-padded (one pad) to `shape`,
    the nodes PyTorch records (SliceBackward0, ConstantPadNdBackward0)."""
    sizes = x._data.shape
    pad = [0] * (2 * len(sizes))
    for d, n in zip(dims, shape):
        if n == -1:
            continue
        if sizes[d] < n:
            pad[len(pad) - 2 * d - 1] = n - sizes[d]
        elif sizes[d] > n:
            x = narrow(x, d, 0, n)
    return constant_pad(x, tuple(pad)) if any(pad) else x


def promote(input, require_complex: bool = False):
    """PyTorch's promote_tensor_fft: integers to the default float dtype, then to complex
    when asked (a recorded copy, ToCopyBackward0); half precision is refused."""
    d = input.dtype
    if d._category == 3:
        return input
    if d._category != 2:
        d = dtypes.get_default_dtype()
    if d not in (dtypes.float32, dtypes.float64):
        raise RuntimeError(f"Unsupported dtype {d._legacy}")
    if require_complex:
        d = dtypes.complex64 if d is dtypes.float32 else dtypes.complex128
    return input if d is input.dtype else input.to(d)
