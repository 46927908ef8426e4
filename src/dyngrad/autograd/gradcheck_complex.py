"""gradcheck of a function of complex tensors, as the real function of their real and
imaginary parts.

# Note [gradcheck of complex functions]
# PyTorch's gradient of a real loss with respect to z = x + iy is dL/dx + i dL/dy (the
# conjugate Wirtinger convention, Note [Complex gradients]). So a complex input that requires
# grad can be handed to the function as view_as_complex of a real (..., 2) tensor, and a complex
# output taken as view_as_real: the gradient the engine brings back to that real tensor is then
# exactly (dL/dx, dL/dy), and central differences on the real and imaginary parts are the
# numerical Jacobian of the same real function. Checking that function checks every complex
# formula on the way, both the part holomorphic ops get from conjugating their derivative and
# the part non-holomorphic ones (abs, real, angle) add.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..ops.elementwise.complex_numbers import view_as_complex, view_as_real

__all__ = ["real_embedding"]


def _is_complex_leaf(t) -> bool:
    return isinstance(t, Tensor) and t._requires_grad and t._data.dtype.kind == "c"


def _pairs(z: Tensor) -> Tensor:
    """A new real leaf holding z's (real, imag) pairs, contiguous, requiring grad."""
    data = z._data
    return Tensor._wrap(np.stack([data.real, data.imag], axis=-1), True)  # (a new array)


def _as_real(out):
    if isinstance(out, Tensor):
        return view_as_real(out) if out._data.dtype.kind == "c" else out
    if isinstance(out, (tuple, list)):
        return tuple(_as_real(o) for o in out)
    return out


def real_embedding(func, inputs: tuple):
    """The real function of the complex inputs' (and outputs') parts, and its inputs: the
    complex inputs that require grad as (..., 2) real tensors. See Note [gradcheck of complex
    functions]."""
    complex_at = {i for i, t in enumerate(inputs) if _is_complex_leaf(t)}
    inputs = tuple(_pairs(t) if i in complex_at else t for i, t in enumerate(inputs))

    def real_func(*args):
        args = tuple(view_as_complex(a) if i in complex_at else a for i, a in enumerate(args))
        return _as_real(func(*args))

    return real_func, inputs
