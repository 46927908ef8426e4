"""`torch.func`: grad, vjp, jvp, jacrev, jacfwd, hessian, vmap, functional_call and
stack_module_state."""

from __future__ import annotations

from .functional_call import functional_call, stack_module_state
from .jacobians import hessian, jacfwd, jacrev
from .transforms import grad, grad_and_value, jvp, vjp
from .vmap import vmap

__all__ = [
    "grad",
    "grad_and_value",
    "vjp",
    "jvp",
    "jacrev",
    "jacfwd",
    "hessian",
    "vmap",
    "functional_call",
    "stack_module_state",
]
