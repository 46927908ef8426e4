"""`torch.func.vmap` as a loop: `func` runs once per batch element and the results are stacked.

# Note [vmap as a loop]
# PyTorch runs `func` once on batched tensors; dyngrad slices the mapped dimension, calls
# `func` per element and stacks the outputs. Values and gradients are the same; it is slower,
# and more permissive: data-dependent control flow, `.item()` and random ops (each element
# draws its own values, as `randomness="different"`) work instead of raising. An output whose
# out_dim is None is taken from the first call. Randomness follows the flag: "same" replays
# the default generator's state for every element (all draw what one call draws), "error"
# raises PyTorch's error once a call has drawn from it.
"""

from __future__ import annotations

import functools

from .._tensor import Tensor
from ..ops.shape.joining import stack
from ..runtime.random import default_generator
from .jacobians import RANDOMNESS
from .pytree import broadcast_prefix, tree_flatten, tree_unflatten

__all__ = ["vmap"]


def _name(func) -> str:
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return repr(func)


def _check_in_dim(name: str, in_dims, arg, in_dim) -> int | None:
    if not isinstance(in_dim, int) and in_dim is not None:
        raise ValueError(
            f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={in_dim} for an input "
            "but in_dim must be either an integer dimension or None."
        )
    if in_dim is None:
        return None
    if not isinstance(arg, Tensor):
        raise ValueError(
            f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={in_dim} for an input "
            f"but the input is of type {type(arg)}. We cannot vmap over non-Tensor arguments, "
            "please use None as the respective in_dim"
        )
    ndim = arg.dim()
    if not -ndim <= in_dim < ndim:
        raise ValueError(
            f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={in_dim} for some "
            f"input, but that input is a Tensor of dimensionality {ndim} so expected in_dim to "
            f"satisfy -{ndim} <= in_dim < {ndim}."
        )
    return in_dim % ndim


def _batched_inputs(name: str, in_dims, args: tuple):
    """(batch size, flat args, their in_dims, spec), with PyTorch's messages."""
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(
            f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
            "(potentially nested) tuple matching the structure of inputs, got: "
            f"{type(in_dims)}."
        )
    if len(args) == 0:
        raise ValueError(
            f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you "
            "are trying to vmap over a function with no inputs. The latter is unsupported."
        )
    flat_args, spec = tree_flatten(args)
    flat_dims = broadcast_prefix(in_dims, spec)
    if flat_dims is None:
        raise ValueError(
            f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with "
            f"the structure of `inputs`. in_dims has structure {tree_flatten(in_dims)[1]} but "
            f"inputs has structure {spec}."
        )
    flat_dims = [_check_in_dim(name, in_dims, a, d) for a, d in zip(flat_args, flat_dims)]
    sizes = [a.size(d) for a, d in zip(flat_args, flat_dims) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError(
            "vmap: Expected all tensors to have the same size in the mapped dimension, got "
            f"sizes {sizes} for the mapped dimension"
        )
    return sizes[0], flat_args, flat_dims, spec


def _stack_outputs(name: str, out_dims, results: list):
    """The per-element results stacked along each output's out_dim."""
    flat_first, spec = tree_flatten(results[0])
    if isinstance(results[0], Tensor) and isinstance(out_dims, tuple) and len(out_dims) == 1:
        out_dims = out_dims[0]  # PyTorch accepts (d,) for a single Tensor output
    flat_dims = broadcast_prefix(out_dims, spec)
    if flat_dims is None:
        raise ValueError(
            f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible "
            f"with the structure of `outputs`. out_dims has structure "
            f"{tree_flatten(out_dims)[1]} but outputs has structure {spec}."
        )
    columns = zip(*(tree_flatten(r)[0] for r in results))
    stacked = []
    for first, column, out_dim in zip(flat_first, columns, flat_dims):
        if out_dim is None:
            stacked.append(first)
            continue
        if not isinstance(first, Tensor):
            raise ValueError(
                f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                f"{type(first)}. Did you mean to set out_dims= to None for output?"
            )
        stacked.append(stack(list(column), dim=out_dim))
    return tree_unflatten(stacked, spec)


def _check_out_dims(name: str, out_dims) -> None:
    for d in tree_flatten(out_dims)[0]:
        if d is not None and not isinstance(d, int):
            raise ValueError(
                f"vmap({name}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a "
                "python collection of ints representing where in the outputs the vmapped "
                "dimension should appear."
            )


def vmap(func, in_dims=0, out_dims=0, randomness: str = "error", *, chunk_size=None):
    """Matches `torch.func.vmap`, computed as a loop over the batch (see Note [vmap as a loop])."""
    if randomness not in RANDOMNESS:
        raise RuntimeError(
            "Only allowed values for randomness are 'error', 'different', or 'same'. "
            f"Got {randomness}"
        )
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")
    name = _name(func)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        _check_out_dims(name, out_dims)
        size, flat_args, flat_dims, spec = _batched_inputs(name, in_dims, args)
        results, start = [], default_generator._state_bytes()
        for i in range(size):
            if randomness == "same" and i:
                default_generator._load_state_bytes(start)
            element = [a if d is None else a.select(d, i) for a, d in zip(flat_args, flat_dims)]
            results.append(func(*tree_unflatten(element, spec), **kwargs))
            if randomness == "error" and i == 0 and default_generator._state_bytes() != start:
                raise RuntimeError(
                    "vmap: called random operation while in randomness error mode. Please "
                    "either use the 'same' or 'different' randomness flags on vmap or perform "
                    f"the randomness operation out of vmap\n`{name}` drew from the default "
                    "generator."
                )
        return _stack_outputs(name, out_dims, results)

    return wrapper
