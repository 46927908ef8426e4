"""`torch.func.grad`, `grad_and_value`, `vjp` and `jvp`: function transforms over the engine."""

from __future__ import annotations

import functools

from .._tensor import Tensor
from ..autograd.engine import grad as autograd_grad
from ..graph.grad_mode import is_grad_enabled
from ..ops.creation.factories import zeros_like
from .levels import Level, reaches_outer
from .pytree import tree_flatten, tree_unflatten

__all__ = ["grad", "grad_and_value", "vjp", "jvp"]

GRAD = "grad_and_value(f)(*args)"
JVP = "jvp(f, primals, tangents)"


# ---- argnums -------------------------------------------------------------------------------


def _wrap_argnum(argnum, num_args: int) -> int:
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if -num_args <= argnum < num_args:
        return argnum % num_args
    raise RuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def check_argnums(argnums, num_args: int):
    """`argnums` validated and made non-negative, with PyTorch's messages."""
    if isinstance(argnums, int):
        return _wrap_argnum(argnums, num_args)
    if not isinstance(argnums, tuple):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    argnums = tuple(_wrap_argnum(a, num_args) for a in argnums)
    if len(argnums) == 0:
        raise RuntimeError("argnums must be non-empty")
    if len(set(argnums)) != len(argnums):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return argnums


def slice_argnums(args: tuple, argnums):
    """The argument at `argnums` (an int), or the tuple of them (a tuple)."""
    argnums = check_argnums(argnums, len(args))
    if isinstance(argnums, int):
        return args[argnums]
    return tuple(args[i] for i in argnums)


def _replace_args(args: tuple, argnums, new) -> tuple:
    if isinstance(argnums, int):
        return args[:argnums] + (new,) + args[argnums + 1 :]
    replaced = list(args)
    for i, value in zip(argnums, new):
        replaced[i] = value
    return tuple(replaced)


def _differentiable_args(level: Level, args: tuple, argnums):
    """(args with fresh tensors at `argnums` (all args when None), fresh leaves, their spec)."""
    if argnums is None:
        diff = args
    else:
        argnums = check_argnums(argnums, len(args))
        diff = slice_argnums(args, argnums)
    flat, spec = tree_flatten(diff)
    fresh = [level.differentiable(x) for x in flat]
    new = tree_unflatten(fresh, spec)
    args = new if argnums is None else _replace_args(args, argnums, new)
    return args, fresh, spec


def _split_aux(output, has_aux: bool, api: str):
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(
            f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True"
        )
    return output


def _gradients(outputs, inputs, cotangents=None, create_graph=True, retain_graph=True):
    """d(outputs)/d(inputs), None where an input is unused or no output requires grad."""
    if cotangents is None:
        cotangents = [None] * len(outputs)
    pairs = [(o, c) for o, c in zip(outputs, cotangents) if o.requires_grad]
    if not pairs:
        return [None] * len(inputs)
    outs, cots = zip(*pairs)
    return list(
        autograd_grad(
            outs,
            inputs,
            cots,
            retain_graph=retain_graph,
            create_graph=create_graph,
            allow_unused=True,
        )
    )


def _zeros_for_none(grads: list, like: list) -> list:
    return [zeros_like(x) if g is None else g for g, x in zip(grads, like)]


# ---- grad ----------------------------------------------------------------------------------


def _check_scalar(output) -> None:
    if not isinstance(output, Tensor):
        raise RuntimeError(
            f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got {type(output)}"
        )
    if output.dim() != 0:
        raise RuntimeError(
            "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor "
            f"with {output.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?"
        )


def _grad_and_value(func, argnums, has_aux: bool, args: tuple, kwargs: dict):
    with Level() as level:
        args, fresh, spec = _differentiable_args(level, args, argnums)
        output, aux = _split_aux(func(*args, **kwargs), has_aux, GRAD)
        _check_scalar(output)
        grads = _gradients([output], fresh, create_graph=level.keeps_graph([output]))
        grads = _zeros_for_none(grads, fresh)
        grads = tree_unflatten([level.unwrap(g) for g in grads], spec)
        output = level.unwrap(output)
        if has_aux:
            return grads, (output, level.unwrap_tree(aux))
        return grads, output


def grad_and_value(func, argnums=0, has_aux: bool = False):
    """Matches `torch.func.grad_and_value`: a function returning (gradient, value)."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return _grad_and_value(func, argnums, has_aux, args, kwargs)

    return wrapper


def grad(func, argnums=0, has_aux: bool = False):
    """Matches `torch.func.grad`: nest it for higher derivatives, `grad(grad(f))`.

    >>> grad(grad(lambda x: x**3))(dyngrad.tensor(2.0))
    tensor(12.)
    """

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        grads, value = _grad_and_value(func, argnums, has_aux, args, kwargs)
        return (grads, value[1]) if has_aux else grads

    return wrapper


# ---- vjp -----------------------------------------------------------------------------------


def _check_outputs(flat: list, api: str) -> None:
    if len(flat) < 1 or (len(flat) == 1 and flat[0] is None):
        raise RuntimeError(
            f"{api}: Expected f to be a function that has non-empty output (got output = {flat})"
        )
    for out in flat:
        if not isinstance(out, Tensor):
            raise RuntimeError(
                f"{api}: expected f(*primals) to return only tensors, got unsupported type "
                f"{type(out)}"
            )


def vjp_with_argnums(func, *primals, argnums=None, has_aux: bool = False):
    """`vjp`, differentiating only the primals at `argnums` (all when None), as jacrev needs."""
    with Level() as level:
        primals, fresh, spec = _differentiable_args(level, primals, argnums)
        output, aux = _split_aux(func(*primals), has_aux, "vjp(f, *primals)")
        aux = level.unwrap_tree(aux) if has_aux else None
        flat_out, out_spec = tree_flatten(output)
        _check_outputs(flat_out, "vjp(f, *primals)")
        results = tree_unflatten([level.unwrap(o) for o in flat_out], out_spec)
        for out in flat_out:
            if not (out.is_floating_point() or out.is_complex()):
                raise RuntimeError(
                    "vjp(f, ...): All outputs of f must be floating-point or complex Tensors, "
                    f"got Tensor with dtype {out.dtype}"
                )

    def vjp_fn(cotangents, retain_graph: bool = True, create_graph: bool | None = None):
        if create_graph is None:
            create_graph = is_grad_enabled()
        flat_cot, cot_spec = tree_flatten(cotangents)
        if cot_spec != out_spec:
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure of "
                f"outputs to the function. cotangents: {cot_spec.pprint()}, primal output: "
                f"{out_spec.pprint()}"
            )
        # A graph only when something outside will differentiate the result (Note [Transform
        # levels]): the outputs reach an outer leaf, or a cotangent requires grad.
        create_graph = create_graph and (
            level.keeps_graph(flat_out) or any(c.requires_grad for c in flat_cot)
        )
        grads = _gradients(flat_out, fresh, flat_cot, create_graph, retain_graph)
        grads = _zeros_for_none(grads, fresh)
        if create_graph:
            grads = [g if reaches_outer(g, level) else g.detach() for g in grads]
        return tree_unflatten(grads, spec)

    return (results, vjp_fn, aux) if has_aux else (results, vjp_fn)


def vjp(func, *primals, has_aux: bool = False):
    """Matches `torch.func.vjp`: (func(*primals), vjp_fn[, aux]); vjp_fn(cotangents) -> tuple."""
    return vjp_with_argnums(func, *primals, has_aux=has_aux)


# ---- jvp -----------------------------------------------------------------------------------


def _check_primals(primals, tangents, argnums):
    if not isinstance(primals, tuple):
        raise RuntimeError(
            "jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be valid to "
            "call f(*primals)."
        )
    diff = primals if argnums is None else slice_argnums(primals, argnums)
    flat_primals, primals_spec = tree_flatten(diff)
    flat_tangents, tangents_spec = tree_flatten(tangents)
    if primals_spec != tangents_spec:
        raise RuntimeError(
            "jvp(f, primals, tangents): Expected primals and tangents to have the same python "
            "structure. For example, if primals is a tuple of 3 tensors, tangents also must be. "
            f"Got primals with structure {primals_spec} and tangents with structure "
            f"{tangents_spec}"
        )
    for name, flat in (("primals", flat_primals), ("tangents", flat_tangents)):
        if len(flat) == 0:
            raise RuntimeError(
                f"jvp(f, primals, tangents): Expected {name} to contain at least one Tensor."
            )
        for x in flat:
            if not isinstance(x, Tensor):
                raise RuntimeError(
                    f"jvp(f, primals, tangents): Expected {name} to only contain Tensors, got "
                    f"{type(x)}"
                )
    return flat_tangents


def jvp_with_argnums(func, primals, tangents, *, argnums=None, strict=False, has_aux=False):
    """`jvp` for the primals at `argnums`, by the double-backward trick (no forward-mode AD).

    The trick: g(u) = J^T u is linear in u, so d(g(u) . t)/du = J t, from two backward passes.
    """
    flat_tangents = _check_primals(primals, tangents, argnums)
    with Level() as level:
        args, fresh, _ = _differentiable_args(level, primals, argnums)
        output, aux = _split_aux(func(*args), has_aux, JVP)
        flat_out, out_spec = tree_flatten(output)
        _check_outputs(flat_out, JVP)
        dummies = [level.new_leaf(zeros_like(o, requires_grad=True)) for o in flat_out]
        transposed = _zeros_for_none(_gradients(flat_out, fresh, dummies), fresh)
        keep = level.keeps_graph(flat_out) or any(t.requires_grad for t in flat_tangents)
        tangents_out = _gradients(transposed, dummies, flat_tangents, keep and level.grad_enabled)
        if strict and any(t is None for t in tangents_out):  # no path from the inputs
            raise RuntimeError(
                "jvp(f, primals, tangents, strict=True): The output of f is independent of the "
                "inputs. This is not allowed with strict=True."
            )
        tangents_out = _zeros_for_none(tangents_out, flat_out)
        primals_out = tree_unflatten([level.unwrap(o) for o in flat_out], out_spec)
        tangents_out = tree_unflatten([level.unwrap(t) for t in tangents_out], out_spec)
        if has_aux:
            return primals_out, tangents_out, level.unwrap_tree(aux)
        return primals_out, tangents_out


def jvp(func, primals, tangents, *, strict: bool = False, has_aux: bool = False):
    """Matches `torch.func.jvp`: (func(*primals), J tangents), by the double-backward trick."""
    return jvp_with_argnums(func, primals, tangents, strict=strict, has_aux=has_aux)
