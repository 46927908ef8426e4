"""Custom differentiable functions: `autograd.Function` with `forward(ctx, ...)`/`backward`.

As in PyTorch, `ctx` *is* the backward node (`CustomScaleBackward`), so what forward saves
on it lives exactly as long as the graph does.
"""

from __future__ import annotations

import functools
import inspect
import warnings

import numpy as np

from .._tensor import Tensor
from ..graph import saved_hooks
from ..graph.errors import modified_inplace_error
from ..graph.grad_mode import no_grad
from ..graph.grad_mode import state as grad_state
from ..graph.node import SECOND_BACKWARD, AccumulateGrad, Node, move_retains_grad
from ..graph.saved import SavedOutput
from ..graph.saved_hooks import Packed
from ..ops.creation.factories import zeros
from ..ops.table.record import record
from ..ops.table.views import check_inplace_allowed, rebase_history
from . import forward_ad
from .special_nodes import Error, outputs_through

__all__ = [
    "Function",
    "FunctionCtx",
    "BackwardCFunction",
    "InplaceFunction",
    "once_differentiable",
]


CLEARED_ON_ACCESS = (
    "saved_tensors can only be accessed once when clear_saved_tensors_on_access=True is set on "
    "the autograd.Function. Either access saved_tensors only once, or set "
    "clear_saved_tensors_on_access=False."
)


class FunctionCtx:
    """What `forward` can tell `backward` (PyTorch's `FunctionCtx`)."""

    _function = None
    _cleared_on_access = False

    def save_for_backward(self, *tensors) -> None:
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    "save_for_backward can only save variables, but argument "
                    f"{tensors.index(t)} is of type {type(t).__name__}"
                )
        self._to_save = tensors

    def save_for_forward(self, *tensors) -> None:
        """Tensors for `jvp` to read as `ctx.saved_tensors` (forward AD)."""
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    "save_for_forward expects all arguments to be tensors; you should save "
                    "non-tensors as attributes on ctx."
                )
        self._forward_saved = tensors

    def mark_dirty(self, *tensors) -> None:
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors) -> None:
        self._non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        self._materialize = bool(value)

    @property
    def saved_tensors(self) -> tuple:
        forward_saved = self.__dict__.get("_forward_saved")
        if forward_saved is not None and self.__dict__.get("_in_jvp"):
            return forward_saved
        if self._saved is None:
            raise RuntimeError(CLEARED_ON_ACCESS if self._cleared_on_access else SECOND_BACKWARD)
        out = tuple(self._unpack_saved_slot(i) for i in range(len(self._saved)))
        if getattr(self._function, "clear_saved_tensors_on_access", False):
            self._saved, self._cleared_on_access = None, True  # the caller's are the last refs
        return out

    @property
    def saved_variables(self) -> tuple:
        warnings.warn(
            "'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning, stacklevel=2
        )
        return self.saved_tensors

    @property
    def _raw_saved_tensors(self) -> tuple:
        """PyTorch's `grad_fn._raw_saved_tensors`: a SavedTensor per saved value."""
        if self._saved is None:
            raise RuntimeError(SECOND_BACKWARD)
        return tuple(saved_hooks.raw_saved(self, i) for i in range(len(self._saved)))

    # the SavedTensor protocol (graph/saved_hooks.py) ----------------------------------------
    def _saved_slot(self, index: int, freed: str):
        if self._saved is None:
            raise RuntimeError(freed)
        return self._saved[index][0]

    def _set_saved_slot(self, index: int, packed) -> None:
        saved = list(self._saved)
        saved[index] = (packed, None)
        self._saved = tuple(saved)

    def _unpack_saved_slot(self, index: int):
        if self._saved is None:
            raise RuntimeError(SECOND_BACKWARD)
        t, version = self._saved[index]
        if type(t) is Packed:  # See Note [Saved tensor hooks]
            return t.unpack(self)
        if type(t) is SavedOutput:  # rebuilt with this node as its history
            t = _rebuild_output(self, t)
        if t is not None and t._version_counter.value != version:
            raise modified_inplace_error(self, "saved_tensors", t, version, t._grad_fn, t._out_nr)
        return t


class BackwardCFunction(Node, FunctionCtx):
    """The node of a custom Function; also the `ctx` its forward and backward receive."""

    _function: type = None
    _needs_grads = False
    _materialize_non_diff_grads = True
    _non_diff_outputs = frozenset()

    def __init__(self):
        Node.__init__(self, ())
        self._to_save = ()
        self._saved = ()
        self._dirty = ()
        self._non_differentiable = ()
        self._materialize = True
        self._arg_is_tensor = ()
        self._input_meta = ()
        self._output_meta = ()
        self.needs_input_grad = ()

    @property
    def _n_outputs(self) -> int:
        return len(self._output_meta)

    def apply(self, grads):
        if self._materialize:
            grads = tuple(self._materialized(i, g) for i, g in enumerate(grads))
        result = self._function.backward(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        n_args = len(self._arg_is_tensor)
        if len(result) != n_args:
            if len(result) > n_args and all(r is None for r in result[n_args:]):
                result = result[:n_args]
            else:
                raise RuntimeError(
                    f"function {self.name()} returned an incorrect number of "
                    f"gradients (expected {n_args}, got {len(result)})"
                )
        edges = iter(self.next_functions)
        return tuple(
            self._check(i, g, next(edges)[0])
            for i, g in enumerate(result)
            if self._arg_is_tensor[i]
        )

    def _materialized(self, i: int, g):
        # A gradient that never came is zeros, as PyTorch's; a non-tensor output has none,
        # nor (with `ctx._materialize_non_diff_grads = False`) a non-differentiable one.
        meta = self._output_meta[i]
        if g is not None or meta is None:
            return g
        if i in self._non_diff_outputs and not self._materialize_non_diff_grads:
            return None
        return zeros(meta[0], dtype=meta[1])

    def _check(self, i: int, g, child):
        if g is None:
            return None
        if not isinstance(g, Tensor):
            raise RuntimeError(f"expected Variable or None (got {type(g).__name__})")
        shape, dtype = self._input_meta[i]
        if g._data.shape != shape:
            try:
                np.broadcast_shapes(g._data.shape, shape)
                g = g.sum_to_size(shape)
            except (ValueError, RuntimeError):
                raise RuntimeError(
                    f"Function {self.name()} returned an invalid gradient at index {i} - got "
                    f"{list(g._data.shape)} but expected shape compatible with "
                    f"{list(shape)}"
                ) from None
        if g.dtype is not dtype and dtype.is_floating_point and not _sets_grad_dtype(child):
            g = g.to(dtype)
        return g

    def release(self) -> None:
        self._saved = None


def _sets_grad_dtype(node) -> bool:
    # a leaf with its own grad_dtype takes the gradient as it comes (AccumulateGrad casts)
    if type(node) is not AccumulateGrad:
        return False
    leaf = node.variable
    return leaf is not None and "_grad_dtype" in leaf.__dict__


class _FunctionMeta(type):
    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_function": cls})


class Function(metaclass=_FunctionMeta):
    """Matches `torch.autograd.Function`: subclass with static forward and backward."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for "
            "your custom autograd.Function to use it with backward "
            "mode AD."
        )

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with "
            "forward mode AD."
        )

    # True: `ctx.saved_tensors` gives the saved tensors once and lets them go (so backward can
    # free them as it goes); a second access raises.
    clear_saved_tensors_on_access = False

    def __init__(self, *args, **kwargs):

        warnings.warn(
            f"{type(self)} should not be instantiated. Methods on autograd functions are all "
            "static, so you should invoke them on the class itself. Instantiating an autograd "
            "function will raise an error in a future version of PyTorch.",
            DeprecationWarning,
            stacklevel=2,
        )

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use "
            "new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
        )

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run forward without recording, then make the outputs' history this function."""
        custom_setup = cls.setup_context is not Function.setup_context
        if custom_setup:  # setup_context sees every argument, defaults filled in, as PyTorch's
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs
        ctx = cls._backward_cls()
        tensors = tuple(a for a in args if isinstance(a, Tensor))
        mask = sum(1 << i for i, t in enumerate(tensors) if t._requires_grad)
        tracking = grad_state.enabled and mask != 0
        if tracking:  # numbered and connected before forward runs, as PyTorch's node is
            record(ctx, tensors, mask, plan=None)  # See Note [One recording path]
        ctx._arg_is_tensor = tuple(isinstance(a, Tensor) for a in args)
        # PyTorch reads requires_grad alone here, so it is True even under no_grad
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        ctx._input_meta = tuple(
            (a._data.shape, a.dtype) if isinstance(a, Tensor) else None for a in args
        )
        tangents = forward_ad.tangents_of(args)
        with no_grad(), forward_ad.hidden_tangents():
            if custom_setup:
                output = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args, **kwargs)
        result = _wrap_outputs(ctx, args, output, tracking)
        if tangents is not None:  # See Note [Forward AD from the backward formulas]
            forward_ad.custom_jvp(cls, ctx, tangents, result)
        return result


class InplaceFunction(Function):
    """Matches `torch.autograd.function.InplaceFunction`, kept by PyTorch for old code."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace


def _wrap_outputs(ctx, args, output, tracking: bool):
    single = not isinstance(output, tuple)
    outputs = (output,) if single else output
    inputs = {id(a) for a in args if isinstance(a, Tensor)}
    dirty = {id(t) for t in ctx._dirty}
    non_diff = {id(t) for t in ctx._non_differentiable}
    if dirty - {id(o) for o in outputs}:
        raise RuntimeError(
            "Some elements marked as dirty during the forward method were not returned as "
            "output. The inputs that are modified inplace must all be outputs of the Function."
        )
    results = []
    produced = {}  # id -> output_nr of the outputs whose history is this node
    for i, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            results.append(out)
            continue
        is_input, is_dirty = id(out) in inputs, id(out) in dirty
        if is_dirty:
            if not is_input:
                _dirty_not_input(out)
            out._version_counter.bump(f"{ctx.name()[:-8]}.forward (mark_dirty)")
        # kind "V" is bfloat16 (Note [bfloat16 on demand]): differentiable as any float
        if not (tracking and out._data.dtype.kind in "fcV" and id(out) not in non_diff):
            out = _non_differentiable_output(out, is_input, is_dirty)
        elif is_dirty:
            _check_dirty_allowed(out)
            if out._base is not None:
                if len(outputs) > 1:
                    raise RuntimeError(DIRTY_VIEW_MANY_OUTPUTS)
                rebase_history(out, ctx)
            else:
                old_fn, old_nr = out._grad_fn, out._out_nr
                out._grad_fn, out._out_nr, out._requires_grad = ctx, i, True
                move_retains_grad(out, old_fn, old_nr)
            produced[id(out)] = i
        else:
            if is_input:  # an input returned as is: a view of it, as PyTorch's
                out = _alias(out)
            out._grad_fn, out._out_nr, out._requires_grad = ctx, i, True
            out._view_ver = out._version_counter.value  # its history is this node, not stale
            produced[id(out)] = i
        if out._base is not None and not (is_input and is_dirty):
            out._creation = "custom_function"  # See Note [Views made without grad]
        results.append(out)
    ctx._output_meta = tuple(
        (o._data.shape, o.dtype) if isinstance(o, Tensor) else None for o in outputs
    )
    ctx._non_diff_outputs = frozenset(
        i for i, o in enumerate(results) if isinstance(o, Tensor) and id(o) not in produced
    )
    _save_tensors(ctx, results, produced, tracking)
    ctx._dirty = ctx._non_differentiable = ()  # the node must not hold its outputs
    return results[0] if single else tuple(results)


DIRTY_VIEW_MANY_OUTPUTS = (
    "If your Function modifies inplace an input that is a view of another Tensor, your "
    "Function cannot return more than one Tensor. This is not supported by the current "
    "autograd engine. You should either make sure the input is not a view (using .clone() for "
    "example) or make your Function only return one Tensor (potentially splitting it into two "
    "Functions: one doing the inplace that returns a single Tensor and a second one that does "
    "the other operations). You can ask on the forum https://discuss.pytorch.org/ if you need "
    "help to do this change."
)


def _non_differentiable_output(out, is_input: bool, is_dirty: bool):
    # PyTorch's rules: an input comes back as a detached alias (no grad) or a view of it (no
    # grad to begin with); another output stops requiring grad, unless it is a view, which
    # keeps its base's, as a view made under no_grad does.
    if out._requires_grad:
        if is_input:
            return out.detach()
        if out._base is None:
            out._requires_grad = False
            out._grad_fn = None
        return out
    if is_input and not is_dirty:
        return _alias(out)
    return out


def _alias(t):
    with no_grad():
        return t.view_as(t)


def _dirty_not_input(out) -> None:
    message = (
        "ctx.mark_dirty() received a tensor that was not an input. Only input Tensors that "
        "have been mutated should be passed to ctx.mark_dirty()."
    )
    if out._base is not None:  # rewriting its base's history would lose the Function's
        raise RuntimeError(message)
    warnings.warn(message, UserWarning, stacklevel=4)


def _save_tensors(ctx, results, produced: dict, tracking: bool) -> None:
    hooks = saved_hooks.current() if tracking and saved_hooks.active else None
    to_save, ctx._to_save = ctx._to_save, ()  # never an output held by its own node (a cycle)
    if hooks is not None:  # See Note [Saved tensor hooks]; a pack hook may raise (checkpoint's
        # early stop), so what is being saved is no longer on the node
        ctx._saved = tuple(
            (None if t is None else _pack(ctx, t, hooks, produced.get(id(t))), None)
            for t in to_save
        )
    else:
        ctx._saved = tuple(
            (_saved_output(t, produced[id(t)]) if id(t) in produced else t, _version_of(t))
            for t in to_save
        )


def _pack(ctx, t, hooks, output_nr):
    if output_nr is None:
        return saved_hooks.pack(t, hooks, node=ctx)
    return saved_hooks.pack(t, hooks, True, output_nr, ctx)


def _version_of(t) -> int:
    return t._version_counter.value if t is not None else 0


def _saved_output(t, output_nr: int) -> SavedOutput:
    # See Note [Graph ownership]: an output saved on its own node would make a cycle
    return SavedOutput(t._data, t._version_counter, output_nr)


def _rebuild_output(ctx, saved: SavedOutput):
    t = Tensor._wrap(saved.tensor._data, True, ctx, saved.output_nr)
    t._version_counter = saved.tensor._version_counter
    return t


def _check_dirty_allowed(out) -> None:
    if (
        out._requires_grad and out._grad_fn is None and out._base is None
    ):  # PyTorch words this case apart
        raise RuntimeError(
            "a leaf Variable that requires grad has been used in an in-place operation."
        )
    check_inplace_allowed(out)


ONCE_DIFFERENTIABLE = (
    "trying to differentiate twice a function that was marked with @once_differentiable"
)


def once_differentiable(fn):
    """Matches `torch.autograd.function.once_differentiable`: backward runs without grad.

    Under `create_graph=True` its results get an `Error` node, so a second differentiation
    through them raises instead of silently giving zero.
    """

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        if not grad_state.enabled:
            return outputs
        if not any(isinstance(a, Tensor) and a._requires_grad for a in args):
            return outputs
        if isinstance(outputs, tuple):
            return _delay_error(outputs)
        return _delay_error((outputs,))[0]

    return wrapper


# Note [Delayed error]
# As PyTorch's, once_differentiable marks a backward's results with `DelayedError`: one `Error`
# node for all results, with an edge to a fresh leaf on each result (None where the result is
# None), never to the backward's own inputs: the results were computed without grad, so
# nothing of the graph that made them is reachable from the node
# (`Error(AccumulateGrad(), None, AccumulateGrad())`). Only the node's presence matters:
# reaching it raises its message. Its results are new tensors on the same arrays.
def _delay_error(outputs: tuple) -> tuple:
    leaves = tuple(Tensor._wrap(o._data, True) if isinstance(o, Tensor) else None for o in outputs)
    marked = outputs_through(Error(ONCE_DIFFERENTIABLE, leaves), leaves)
    return tuple(m if isinstance(o, Tensor) else o for o, m in zip(outputs, marked))
