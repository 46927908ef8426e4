"""`torch.nn.init`: PyTorch's initialisations, drawn as PyTorch draws them.

Each goes through the same tensor ops as PyTorch's (`uniform_`, `normal_`, ...), so after
`manual_seed` the weights are PyTorch's, bit for bit (orthogonal_ up to its QR).
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .._tensor import Tensor
from ..graph.grad_mode import no_grad
from ..ops.creation.random import randperm
from ..ops.elementwise.compare import where

__all__ = [
    "calculate_gain",
    "uniform_",
    "normal_",
    "trunc_normal_",
    "constant_",
    "ones_",
    "zeros_",
    "eye_",
    "dirac_",
    "xavier_uniform_",
    "xavier_normal_",
    "kaiming_uniform_",
    "kaiming_normal_",
    "orthogonal_",
    "sparse_",
]

_LINEAR = (
    "linear",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
)


def calculate_gain(nonlinearity: str, param=None) -> float:
    """Matches `torch.nn.init.calculate_gain`."""
    if nonlinearity in _LINEAR or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _fill(tensor: Tensor, values) -> Tensor:
    with no_grad():
        tensor.copy_(Tensor._wrap(np.asarray(values).astype(tensor._data.dtype, copy=False)))
    return tensor


def _shape(tensor: Tensor) -> tuple:
    return tensor._data.shape


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    """Matches `torch.nn.init.uniform_`: U(a, b)."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    """Matches `torch.nn.init.normal_`: N(mean, std²)."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(
    tensor: Tensor,
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
    generator=None,
) -> Tensor:
    """Matches `torch.nn.init.trunc_normal_`: N(mean, std²) restricted to [a, b].

    PyTorch's rejection sampling, draw for draw: normals redrawn where they fall outside when
    [a, b] holds more than 30% of the mass, else uniforms on [a, b] accepted by the density."""
    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
            "The distribution of values may be incorrect.",
            stacklevel=2,
        )
    with no_grad():
        mass = _norm_cdf((b - mean) / std) - _norm_cdf((a - mean) / std)
        if mass > 0.3:
            _redraw_normals(tensor, mean, std, a, b, generator)
        else:
            _accept_uniforms(tensor, mean, std, a, b, generator)
    return tensor


def _norm_cdf(x: float) -> float:
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def _redraw_normals(tensor, mean, std, a, b, generator):
    lo, hi = tensor.new_tensor(a).item(), tensor.new_tensor(b).item()  # as the tensor holds them
    result = tensor.normal_(mean, std, generator=generator)
    while True:
        outside = (result < lo) | (result > hi)
        if not outside.any():
            break
        result = where(outside, _like(result).normal_(mean, std, generator=generator), result)
    if result is not tensor:
        tensor.copy_(result)


def _accept_uniforms(tensor, mean, std, a, b, generator):
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2

    def rejected(candidates):  # log u > log density / peak
        candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
        return accept.uniform_(generator=generator).log_().gt(candidates)

    candidates, accept = _like(tensor), _like(tensor)
    tensor.uniform_(a, b, generator=generator)
    candidates.copy_(tensor)
    pending = rejected(candidates)
    if not pending.any():
        return
    result = tensor
    while True:
        candidates.uniform_(a, b, generator=generator)
        result = where(pending, candidates, result)
        pending = where(pending, rejected(candidates), pending)
        if not pending.any():
            break
    tensor.copy_(result)


def _like(tensor: Tensor) -> Tensor:
    return tensor.new_empty(tensor.shape)


def constant_(tensor: Tensor, val: float) -> Tensor:
    return _fill(tensor, np.full(_shape(tensor), val))


def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 0.0)


def eye_(tensor: Tensor) -> Tensor:
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _fill(tensor, np.eye(*_shape(tensor)))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Matches `torch.nn.init.dirac_`: a convolution kernel that passes its input through."""
    shape = _shape(tensor)
    if len(shape) not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    if shape[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = shape[0] // groups
    values = np.zeros(shape)
    centre = tuple(s // 2 for s in shape[2:])
    for g in range(groups):
        for d in range(min(out_per_group, shape[1])):
            values[(g * out_per_group + d, d) + centre] = 1
    return _fill(tensor, values)


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """Matches `torch.nn.init._calculate_fan_in_and_fan_out`."""
    shape = _shape(tensor)
    if len(shape) < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive = int(np.prod(shape[2:])) if len(shape) > 2 else 1
    return shape[1] * receptive, shape[0] * receptive


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    valid = ["fan_in", "fan_out"]
    if mode not in valid:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Matches `torch.nn.init.xavier_uniform_`: U(-a, a), a = gain √(6 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Matches `torch.nn.init.xavier_normal_`: std = gain √(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor, a, mode, nonlinearity) -> float | None:
    if 0 in _shape(tensor):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return None
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator=None,
) -> Tensor:
    """Matches `torch.nn.init.kaiming_uniform_`: U(-b, b), b = gain √(3 / fan)."""
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator=None,
) -> Tensor:
    """Matches `torch.nn.init.kaiming_normal_`: N(0, gain² / fan)."""
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor: Tensor, gain: float = 1, generator=None) -> Tensor:
    """Matches `torch.nn.init.orthogonal_`: a (semi-)orthogonal matrix from a QR of N(0, 1).

    The normal draws are PyTorch's; the QR is NumPy's LAPACK, so values can differ from
    PyTorch's in the last bits."""
    shape = _shape(tensor)
    if len(shape) < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if 0 in shape:
        return tensor
    rows = shape[0]
    cols = int(np.prod(shape)) // rows
    with no_grad():
        flat = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)._data
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))  # makes the factorisation unique, as PyTorch does
    if rows < cols:
        q = q.T
    _fill(tensor, q.reshape(shape))
    with no_grad():
        return tensor.mul_(gain)


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator=None) -> Tensor:
    """Matches `torch.nn.init.sparse_`: N(0, std²) with a fraction of each column zeroed
    (the rows chosen by `randperm` on the default generator, as PyTorch does)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = _shape(tensor)
    zeros = int(math.ceil(sparsity * rows))
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for c in range(cols):
            tensor[randperm(rows)[:zeros], c] = 0
    return tensor


def _deprecated(method):
    """PyTorch's old initialiser names without the trailing underscore: a FutureWarning, then
    the in-place one."""
    new_name = method.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(
            f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.",
            FutureWarning,
            stacklevel=2,
        )
        return method(*args, **kwargs)

    deprecated_init.__name__ = deprecated_init.__qualname__ = old_name
    deprecated_init.__doc__ = f"Matches `torch.nn.init.{old_name}`: deprecated, see `{new_name}`."
    return deprecated_init


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
