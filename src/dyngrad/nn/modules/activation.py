"""Activation modules: thin Modules over `nn.functional`, with PyTorch's printed forms."""

from __future__ import annotations

from ...ops.creation.factories import empty
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .attention import MultiheadAttention  # noqa: F401 - PyTorch keeps it in this module
from .module import Module

__all__ = [
    "ReLU",
    "ReLU6",
    "LeakyReLU",
    "ELU",
    "SELU",
    "CELU",
    "GELU",
    "SiLU",
    "Mish",
    "Softplus",
    "Softsign",
    "Hardtanh",
    "Hardsigmoid",
    "Hardswish",
    "Sigmoid",
    "Tanh",
    "LogSigmoid",
    "Tanhshrink",
    "Threshold",
    "Softmax",
    "LogSoftmax",
    "Softmin",
    "Softmax2d",
    "GLU",
    "PReLU",
    "Hardshrink",
    "Softshrink",
    "RReLU",
]


def _options(*fields: str, inplace: bool = False) -> str:
    """An extra_repr: the fields, then `inplace=True` only when set, as PyTorch prints them."""
    return ", ".join(fields + (("inplace=True",) if inplace else ()))


class _Inplace(Module):
    """An activation whose only option is `inplace`."""

    _functional = None

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return type(self)._functional(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return _options(inplace=self.inplace)


class ReLU(_Inplace):
    """Matches `torch.nn.ReLU`; `inplace=True` rewrites its input (ReluBackward0 on it)."""

    _functional = staticmethod(F.relu)


class SELU(_Inplace):
    _functional = staticmethod(F.selu)


class SiLU(_Inplace):
    _functional = staticmethod(F.silu)


class Mish(_Inplace):
    _functional = staticmethod(F.mish)


class Hardsigmoid(_Inplace):
    _functional = staticmethod(F.hardsigmoid)

    def extra_repr(self) -> str:
        return ""


class Hardswish(Hardsigmoid):
    _functional = staticmethod(F.hardswish)


class _Stateless(Module):
    """An activation without options."""

    _functional = None

    def forward(self, input):
        return type(self)._functional(input)


class Sigmoid(_Stateless):
    _functional = staticmethod(F.sigmoid)


class Tanh(_Stateless):
    _functional = staticmethod(F.tanh)


class LogSigmoid(_Stateless):
    _functional = staticmethod(F.logsigmoid)


class Tanhshrink(_Stateless):
    _functional = staticmethod(F.tanhshrink)


class Softsign(_Stateless):
    _functional = staticmethod(F.softsign)


class LeakyReLU(Module):
    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return _options(f"negative_slope={self.negative_slope}", inplace=self.inplace)


class RReLU(Module):
    """Matches `torch.nn.RReLU`: random negative slopes in [lower, upper] while training (drawn
    from dyngrad's generator as PyTorch draws them), their mean in eval mode."""

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return _options(f"lower={self.lower}", f"upper={self.upper}", inplace=self.inplace)


class ELU(Module):
    def __init__(self, alpha: float = 1.0, inplace: bool = False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return _options(f"alpha={self.alpha}", inplace=self.inplace)


class CELU(ELU):
    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)


class GELU(Module):
    def __init__(self, approximate: str = "none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Softplus(Module):
    def __init__(self, beta: float = 1.0, threshold: float = 20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Hardtanh(Module):
    def __init__(
        self,
        min_val: float = -1.0,
        max_val: float = 1.0,
        inplace: bool = False,
        min_value=None,
        max_value=None,
    ):
        super().__init__()
        self.min_val = min_val if min_value is None else min_value
        self.max_val = max_val if max_value is None else max_value
        self.inplace = inplace
        if self.max_val <= self.min_val:
            raise AssertionError("max_val must be greater than min_val")

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return _options(f"min_val={self.min_val}, max_val={self.max_val}", inplace=self.inplace)


class ReLU6(Hardtanh):
    def __init__(self, inplace: bool = False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return _options(inplace=self.inplace)


class Threshold(Module):
    def __init__(self, threshold: float, value: float, inplace: bool = False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return _options(f"threshold={self.threshold}, value={self.value}", inplace=self.inplace)


class _DimActivation(Module):
    _functional = None

    def __init__(self, dim: int | None = None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return type(self)._functional(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax(_DimActivation):
    """Matches `torch.nn.Softmax`."""

    _functional = staticmethod(F.softmax)


class LogSoftmax(_DimActivation):
    """Matches `torch.nn.LogSoftmax`: numerically stable log(softmax(x))."""

    _functional = staticmethod(F.log_softmax)


class Softmin(_DimActivation):
    _functional = staticmethod(F.softmin)


class Softmax2d(Module):
    def forward(self, input):
        if input.dim() not in (3, 4):
            raise AssertionError(
                f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead"
            )
        return F.softmax(input, -3, _stacklevel=5)


class GLU(_DimActivation):
    def __init__(self, dim: int = -1):
        super().__init__(dim)

    def forward(self, input):
        return F.glu(input, self.dim)


class PReLU(Module):
    """Matches `torch.nn.PReLU`: max(0, x) + a min(0, x) with a learned slope per channel."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(empty(num_parameters, dtype=dtype, device=device))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class _Shrink(Module):
    _functional = None

    def __init__(self, lambd: float = 0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return type(self)._functional(input, self.lambd)

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class Hardshrink(_Shrink):
    _functional = staticmethod(F.hardshrink)


class Softshrink(_Shrink):
    _functional = staticmethod(F.softshrink)
