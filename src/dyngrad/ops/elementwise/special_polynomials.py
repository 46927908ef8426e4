"""torch.special's orthogonal polynomials of a tensor degree `n`: rows PyTorch does not
differentiate (they record no node). See Note [Polynomial degrees]."""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from ..arrays import orthogonal_polynomials as kernels
from ..table import promotion
from ..table.record import apply
from ..table.registry import defop
from .special_normal import number_pair_error

_KERNELS = {
    "chebyshev_polynomial_t": kernels.chebyshev_t,
    "chebyshev_polynomial_u": kernels.chebyshev_u,
    "chebyshev_polynomial_v": kernels.chebyshev_v,
    "chebyshev_polynomial_w": kernels.chebyshev_w,
    "shifted_chebyshev_polynomial_t": kernels.shifted_chebyshev_t,
    "shifted_chebyshev_polynomial_u": kernels.shifted_chebyshev_u,
    "shifted_chebyshev_polynomial_v": kernels.shifted_chebyshev_v,
    "shifted_chebyshev_polynomial_w": kernels.shifted_chebyshev_w,
    "hermite_polynomial_h": kernels.hermite_h,
    "hermite_polynomial_he": kernels.hermite_he,
    "laguerre_polynomial_l": kernels.laguerre_l,
    "legendre_polynomial_p": kernels.legendre_p,
}


def _forward(kernel):
    def fwd(xp, x, n):
        # x is a float32 or float64 array (a Python number x is wrapped by the caller)
        with np.errstate(all="ignore"):
            return kernel(x, np.asarray(n))

    return fwd


POLYNOMIAL_ROWS = {
    name: defop(
        "special_" + name,
        _forward(kernel),
        promote=promotion.real_kernel(name + "_cpu", promotion.binary_floating),
    )
    for name, kernel in _KERNELS.items()
}


def _publish(name, op):
    def fn(input, n):
        if not isinstance(input, Tensor):
            if not isinstance(n, Tensor):
                raise number_pair_error(name, input, n, "x", "n")
            dtype = promotion.result_type(input, n).np
            input = Tensor._wrap(np.asarray(input, dtype))
        return apply(op, (input, n))

    fn.__name__ = name
    fn.__doc__ = f"Matches `torch.special.{name}`: degree n truncated to an integer."
    return fn


POLYNOMIAL_FUNCTIONS = {name: _publish(name, op) for name, op in POLYNOMIAL_ROWS.items()}
