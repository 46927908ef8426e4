"""`torch.autograd.forward_ad`: forward-mode AD with dual tensors.

# Note [Forward AD from the backward formulas]
# PyTorch gives every op a second formula, its Jacobian-vector product. dyngrad derives it from
# the one formula each row already has, its vector-Jacobian product `vjp(u) = Jᵀu`, which is
# linear in `u` and written in differentiable Tensor ops: for a zero `u` that requires grad,
#     s = Σᵢ <vjpᵢ(u), tᵢ> = <u, Σᵢ Jᵢ tᵢ>,   so   ds/du = Σᵢ Jᵢ tᵢ,
# the output's tangent (the "double-vjp" trick). No row needs a second formula, so no row can
# disagree with itself: the tangent is exactly as right as the gradient gradcheck checks.
#
# It is attached where every op is already seen: while a dual level is open, forward AD is
# the op observer (Note [Op observer] in ops/table/record.py) for ops that return a new
# tensor, and the in-place observer (called before the write, while the input still holds its
# old value) for ops that write into their input. An op whose inputs carry no tangent costs
# one scan of its arguments; outside a dual level, nothing. The ops a tangent's computation
# runs are not themselves propagated (`_state.busy`). A custom Function's forward runs with
# its inputs' tangents hidden, and its `jvp` gives its outputs' (PyTorch's rule).
#
# Differences from PyTorch: a view's tangent is computed like any output's, so it is not a
# view of its input's tangent (writing into one does not change the other); only one level
# can be open (as in PyTorch today).
"""

from __future__ import annotations

import weakref
from typing import NamedTuple

import numpy as np

from .._tensor import Tensor
from ..graph.grad_mode import _DecoratorContextManager, enable_grad
from ..graph.grad_mode import state as grad_state
from ..ops.creation.factories import zeros_like
from ..ops.table import record as recording
from .engine import grad

__all__ = [
    "UnpackedDualTensor",
    "dual_level",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
]


class _State:
    level = None  # the open level (0), or None
    busy = False  # computing a tangent, or inside a custom Function's forward
    duals: list = []  # weak references to the tensors given a tangent at the open level
    previous = None  # the op observer forward AD wraps (the doctor's, the profiler's)
    pending: dict = {}  # id(tensor) -> tangent computed before an in-place write


_state = _State()


class UnpackedDualTensor(NamedTuple):
    """Matches `torch.autograd.forward_ad.UnpackedDualTensor`."""

    primal: Tensor
    tangent: Tensor | None


def tangent_of(t):
    """The tangent `t` carries at the open level, or None."""
    return t.__dict__.get("_fw_grad") if isinstance(t, Tensor) else None


def _set_tangent(t, tangent) -> None:
    t.__dict__["_fw_grad"] = tangent
    _state.duals.append(weakref.ref(t))


def enter_dual_level() -> int:
    """Matches `torch.autograd.forward_ad.enter_dual_level`."""
    if _state.level is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _state.level = 0
    _state.previous = recording.observer
    recording.observer = _observe
    recording.inplace_observer = _observe_inplace
    return 0


def exit_dual_level(*, level=None) -> None:
    """Matches `torch.autograd.forward_ad.exit_dual_level`: every tangent of the level is
    dropped."""
    if level is None:
        level = _state.level
    if level is None or level != _state.level:
        raise RuntimeError(
            "Trying to exit a forward AD level that was not the last one that was created. "
            "This is not supported."
        )
    for ref in _state.duals:
        t = ref()
        if t is not None:
            t.__dict__.pop("_fw_grad", None)
    _state.duals, _state.pending = [], {}
    recording.observer = _state.previous
    recording.inplace_observer = None
    _state.previous = _state.level = None


class dual_level(_DecoratorContextManager):
    """Matches `torch.autograd.forward_ad.dual_level`: a context where dual tensors live."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc) -> None:
        exit_dual_level()


def _check_level(level) -> None:
    if (_state.level if level is None else level) is None:
        raise RuntimeError(
            "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
            "enter_dual_level() first."
        )


def make_dual(tensor, tangent, *, level=None):
    """Matches `torch.autograd.forward_ad.make_dual`: a view of `tensor` carrying `tangent`."""
    _check_level(level)
    for name, t in (("primal", tensor), ("tangent", tangent)):
        if not (t.is_floating_point() or t.is_complex()):
            raise ValueError(f"Expected {name} to be floating point or complex, but got: {t.dtype}")
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size {list(tensor.shape)} "
            f"while the given forward gradient is of size {list(tangent.shape)}."
        )
    with _quiet():
        dual = tensor.view_as(tensor)
    _set_tangent(dual, tangent)
    return dual


def unpack_dual(tensor, *, level=None):
    """Matches `torch.autograd.forward_ad.unpack_dual`: (primal, tangent), the primal a view
    of `tensor` without the tangent; (tensor, None) for a tensor that carries none."""
    if level is None:
        level = _state.level
    tangent = tangent_of(tensor) if level is not None else None
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    with _quiet():
        primal = tensor.view_as(tensor)
    return UnpackedDualTensor(primal, tangent)


class _quiet:
    """Ops run here propagate no tangent (a tangent's own computation, a custom Function's
    forward)."""

    def __enter__(self):
        self.was, _state.busy = _state.busy, True

    def __exit__(self, *exc):
        _state.busy = self.was


def hidden_tangents():
    """Context of a custom Function's forward: its inputs' tangents are not propagated."""
    return _quiet()


# ---- propagation: See Note [Forward AD from the backward formulas] ----------------------------


def _tangents(args):
    """Each argument's tangent (None where it has none), or None when none has one."""
    tangents = tuple(tangent_of(a) for a in args)
    return tangents if any(t is not None for t in tangents) else None


def _observe(op, args, attrs, result) -> None:
    if _state.previous is not None:
        _state.previous(op, args, attrs, result)
    if _state.busy:
        return
    if type(args) is tuple and args and result is args[0] and id(result) in _state.pending:
        tangent = _state.pending.pop(id(result))  # an in-place op's, computed before the write
        _set_tangent(result, tangent)
        if result._base is not None:  # written through a view: the base's tangent too
            _write_into_base(result, tangent)
        return
    tangents = _tangents(args)
    if tangents is not None:
        _attach(result, _jvp(op, args, attrs, result, tangents))


def _observe_inplace(op, args, attrs, new_value) -> None:
    """Before `op` writes `new_value` (an array) into args[0]: its tangent from the inputs as
    they are now (the old value among them)."""
    if _state.busy:
        return
    tangents = _tangents(args)
    if tangents is not None:
        (tangent,) = _jvp(op, args, attrs, Tensor._wrap(new_value), tangents)
        if tangent is not None:
            _state.pending[id(args[0])] = tangent


def _write_into_base(view, tangent) -> None:
    base = view._base
    with _quiet():
        old = tangent_of(base)
        new = zeros_like(base) if old is None else old.clone()
        recording.replay_view(new, view._view_chain).copy_(tangent)
    _set_tangent(base, new)


def _attach(result, tangents) -> None:
    outputs = result if type(result) is tuple else (result,)
    for out, tangent in zip(outputs, tangents):
        if tangent is not None and isinstance(out, Tensor):
            _set_tangent(out, tangent)


def _differentiable(t) -> bool:
    return isinstance(t, Tensor) and (t.is_floating_point() or t.is_complex())


def _jvp(op, args, attrs, result, tangents) -> tuple:
    """The tangent of each of `op`'s outputs, from its inputs' tangents."""
    outputs = result if type(result) is tuple else (result,)
    if not op.records:
        return (None,) * len(outputs)
    keep_graph = grad_state.enabled and any(
        isinstance(a, Tensor) and a.requires_grad for a in (*args, *tangents)
    )
    with _quiet(), enable_grad():
        probes = [
            zeros_like(out).requires_grad_(True)
            if _differentiable(out) and op.is_differentiable(k)
            else None
            for k, out in enumerate(outputs)
        ]
        env = dict(attrs)
        if op.variadic:
            env[op.inputs[0]] = args
        else:
            env.update(zip(op.inputs, args))
        for name, a in zip(op.shape_names, args):
            if isinstance(a, Tensor):
                env[name] = a.shape
        env["out"] = result
        env["g"] = probes[0] if op.n_outputs == 1 else tuple(probes)
        total = None
        for i, t in enumerate(tangents):
            formula = op.formulas[0] if op.variadic else op.formulas[i]
            if t is None or formula is None:
                continue
            fn, params = formula
            if op.variadic:
                env["i"] = i
                env[op.shape_names[0]] = args[i].shape
            try:
                vjp = fn(*[env[p] for p in params])
            except RuntimeError as exc:
                raise NotImplementedError(
                    f"Trying to use forward AD with {op.name} that does not support it because "
                    f"it has not been implemented yet.\n(dyngrad derives a tangent from the "
                    f"op's backward formula, which raised: {exc})"
                ) from None
            if vjp is None:
                continue
            if tuple(vjp.shape) != tuple(args[i].shape):
                vjp = vjp.sum_to_size(args[i].shape)
            # <vjp(u), t> in PyTorch's real inner product Re(Σ conj(a) b): for complex
            # tensors the gradient is the conjugate Wirtinger one, and ds/du is then J t
            term = (vjp.conj() * t.to(vjp.dtype)).sum()
            if term.is_complex():
                term = term.real
            total = term if total is None else total + term
        live = [p for p in probes if p is not None]
        if total is None or not live or not total.requires_grad:
            return tuple(None if p is None else p.detach() for p in probes)
        try:
            found = iter(grad(total, live, allow_unused=True, create_graph=keep_graph))
        except (RuntimeError, NotImplementedError) as exc:  # a backward not differentiable
            raise NotImplementedError(
                f"Trying to use forward AD with {op.name} that does not support it because it "
                f"has not been implemented yet.\n(dyngrad derives a tangent by differentiating "
                f"the op's backward, which is not differentiable: {exc})"
            ) from None
        tangents_out = []
        for p in probes:
            if p is None:
                tangents_out.append(None)
                continue
            g = next(found)
            tangents_out.append(p.detach() if g is None else g if keep_graph else g.detach())
        return tuple(tangents_out)


def tangents_of(args):
    """The tangents of a custom Function's arguments (None for each that has none), or None
    when no dual level is open or no argument carries one."""
    if _state.level is None or _state.busy:
        return None
    return _tangents(args)


def custom_jvp(cls, ctx, tangents, result) -> None:
    """A custom Function's outputs' tangents, from its `jvp` (PyTorch's NotImplementedError
    when it has none)."""
    ctx._in_jvp = True
    try:
        with _quiet():
            out = cls.jvp(ctx, *tangents)
    finally:
        ctx._in_jvp = False
    outputs = result if type(result) is tuple else (result,)
    out = out if type(out) is tuple else (out,)
    if len(out) != len(outputs):
        raise RuntimeError(
            f"jvp returned an incorrect number of tangents (expected {len(outputs)}, got "
            f"{len(out)})"
        )
    _attach(result, out)


def jvp_columns(func, inputs: tuple, i: int):
    """The Jacobian's columns by forward mode, one per element e of `inputs[i]`: for each, the
    flat tangents (arrays, None where none) of `func`'s outputs (a sequence of tensors) when
    `inputs[i]` alone moves along its e-th element. (gradcheck and `jacobian` read these.)"""
    t = inputs[i]
    for e in range(t._data.size):
        direction = np.zeros(t._data.size, t._data.dtype)
        direction[e] = 1
        with dual_level():
            args = list(inputs)
            args[i] = make_dual(t, Tensor._wrap(direction.reshape(t._data.shape)))
            tangents = [tangent_of(out) for out in func(*args)]
            yield [None if g is None else g.detach()._data.reshape(-1) for g in tangents]
