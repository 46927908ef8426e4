"""`torch.func.jacrev`, `jacfwd` and `hessian`, one vjp per output element (no forward mode)."""

from __future__ import annotations

import functools

from .._tensor import Tensor
from ..ops.creation.factories import zeros, zeros_like
from ..ops.creation.ranges import eye
from ..ops.shape.joining import stack
from .pytree import tree_flatten, tree_unflatten
from .transforms import slice_argnums, vjp_with_argnums

__all__ = ["jacrev", "jacfwd", "hessian"]

RANDOMNESS = ("error", "different", "same")


def _error_if_complex(api: str, tree, is_input: bool) -> None:
    for i, x in enumerate(tree_flatten(tree)[0]):
        if isinstance(x, Tensor) and x.is_complex():
            kind = "inputs" if is_input else "outputs"
            raise RuntimeError(
                f"{api}: Expected all {kind} to be real but received complex tensor at "
                f"flattened input idx: {i}"
            )


def _one_hots(out):
    """The cotangents e_0, e_1, ... of `out`'s elements, each shaped like `out`."""
    basis = eye(out.numel(), dtype=out.dtype, device=out.device)
    return [row.view(out.shape) for row in basis]


def _jacobian(api: str, func, argnums, has_aux: bool, args: tuple):
    """The Jacobian tree: `func`'s output structure, each leaf holding the `argnums` tree."""
    _error_if_complex(api, args, is_input=True)
    output, vjp_fn, *aux = vjp_with_argnums(func, *args, argnums=argnums, has_aux=has_aux)
    flat_out, out_spec = tree_flatten(output)
    _error_if_complex(api, flat_out, is_input=False)
    flat_primals, primals_spec = tree_flatten(slice_argnums(args, argnums))
    per_output = []
    for i, out in enumerate(flat_out):
        rows = []
        for one_hot in _one_hots(out):
            cotangents = [one_hot if j == i else zeros_like(o) for j, o in enumerate(flat_out)]
            rows.append(tree_flatten(vjp_fn(tree_unflatten(cotangents, out_spec)))[0])
        blocks = [
            stack([row[k] for row in rows]).view(out.shape + p.shape)
            if rows
            else zeros(out.shape + p.shape, dtype=p.dtype, device=p.device)
            for k, p in enumerate(flat_primals)
        ]
        per_output.append(tree_unflatten(blocks, primals_spec))
    jac = tree_unflatten(per_output, out_spec)
    return (jac, aux[0]) if has_aux else jac


def jacrev(func, argnums=0, *, has_aux: bool = False, chunk_size=None, _preallocate_and_copy=False):
    """Matches `torch.func.jacrev`: shapes out.shape + in.shape; `chunk_size` is accepted."""
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args):
        return _jacobian("jacrev", func, argnums, has_aux, args)

    return wrapper


def jacfwd(func, argnums=0, has_aux: bool = False, *, randomness: str = "error"):
    """Matches `torch.func.jacfwd` in values.

    dyngrad has no forward-mode AD: the Jacobian is built in reverse mode, one backward pass
    per output element, so `randomness` is only checked.
    """
    if randomness not in RANDOMNESS:
        raise RuntimeError(
            "Only allowed values for randomness are 'error', 'different', or 'same'. "
            f"Got {randomness}"
        )

    @functools.wraps(func)
    def wrapper(*args):
        return _jacobian("jacfwd", func, argnums, has_aux, args)

    return wrapper


def hessian(func, argnums=0):
    """Matches `torch.func.hessian`: `jacfwd(jacrev(func, argnums), argnums)`."""
    return jacfwd(jacrev(func, argnums), argnums)
