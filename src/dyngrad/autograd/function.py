"""Custom differentiable functions: `autograd.Function` with `forward(ctx, ...)`/`backward`.

As in PyTorch, `ctx` *is* the backward node (`CustomScaleBackward`), so what forward saves
on it lives exactly as long as the graph does.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np

from .._tensor import Tensor
from ..graph import saved_hooks
from ..graph.errors import modified_inplace_error
from ..graph.grad_mode import no_grad
from ..graph.grad_mode import state as grad_state
from ..graph.node import SECOND_BACKWARD, Node
from ..graph.saved import SavedOutput
from ..graph.saved_hooks import Packed
from ..ops.creation.factories import zeros
from ..ops.table.record import gradient_edge, record
from ..ops.table.views import check_inplace_allowed, rebase_history

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable"]


class FunctionCtx:
    """What `forward` can tell `backward` (PyTorch's `FunctionCtx`)."""

    def save_for_backward(self, *tensors) -> None:
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    "save_for_backward can only save variables, but argument "
                    f"{tensors.index(t)} is of type {type(t).__name__}"
                )
        self._to_save = tensors

    def mark_dirty(self, *tensors) -> None:
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors) -> None:
        self._non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        self._materialize = bool(value)

    @property
    def saved_tensors(self) -> tuple:
        if self._saved is None:
            raise RuntimeError(SECOND_BACKWARD)
        return tuple(self._unpack_saved_slot(i) for i in range(len(self._saved)))

    saved_variables = saved_tensors

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
            grads = tuple(
                zeros(shape, dtype=dtype) if g is None else g
                for g, (shape, dtype) in zip(grads, self._output_meta)
            )
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
        return tuple(self._check(i, g) for i, g in enumerate(result) if self._arg_is_tensor[i])

    def _check(self, i: int, g):
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
        if g.dtype is not dtype and dtype.is_floating_point:
            g = g.to(dtype)
        return g

    def release(self) -> None:
        self._saved = None


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
        custom_setup = cls.setup_context is not Function.setup_context
        with no_grad():
            if custom_setup:
                output = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args, **kwargs)
        return _wrap_outputs(ctx, args, output, tracking)


def _wrap_outputs(ctx, args, output, tracking: bool):

    single = not isinstance(output, tuple)
    outputs = (output,) if single else output
    inputs = {id(a): a for a in args if isinstance(a, Tensor)}
    dirty = {id(t) for t in ctx._dirty}
    non_diff = {id(t) for t in ctx._non_differentiable}
    results = []
    for i, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            results.append(out)
            continue
        if id(out) in dirty:
            out._version_counter.bump(f"{ctx.name()[:-8]}.forward (mark_dirty)")
            if tracking:
                _check_dirty_allowed(out)
        elif id(out) in inputs:
            out = out.detach()  # an input returned as is: a new tensor on the same array
        if tracking and out._data.dtype.kind in "fc" and id(out) not in non_diff:
            if id(out) in dirty and out._base is not None:
                rebase_history(out, ctx)
            else:
                out._grad_fn, out._out_nr, out._requires_grad = ctx, i, True
        elif id(out) not in dirty:
            out._requires_grad = False
        results.append(out)
    ctx._output_meta = tuple(
        (o._data.shape, o.dtype) if isinstance(o, Tensor) else ((), None) for o in outputs
    )
    _save_tensors(ctx, results, tracking)
    return results[0] if single else tuple(results)


def _save_tensors(ctx, results, tracking: bool) -> None:
    produced = {
        id(o): i for i, o in enumerate(results) if isinstance(o, Tensor) and o._grad_fn is ctx
    }
    hooks = saved_hooks.current() if tracking and saved_hooks.active else None
    if hooks is not None:  # See Note [Saved tensor hooks]
        ctx._saved = tuple(
            (None if t is None else _pack(ctx, t, hooks, produced.get(id(t))), None)
            for t in ctx._to_save
        )
    else:
        ctx._saved = tuple(
            (_saved_output(t, produced[id(t)]) if id(t) in produced else t, _version_of(t))
            for t in ctx._to_save
        )
    ctx._to_save = ()


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


class Error(Node):
    """PyTorch's `Error` node: differentiating through it raises its message."""

    def __init__(self, next_functions, message: str):
        super().__init__(next_functions)
        self._message = message

    def apply(self, grads):
        raise RuntimeError(self._message)


def once_differentiable(fn):
    """Matches `torch.autograd.function.once_differentiable`: backward runs without grad.

    Under `create_graph=True` its results get an `Error` node, so a second differentiation
    through them raises instead of silently giving zero.
    """

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        needing = [a for a in args if isinstance(a, Tensor) and a._requires_grad]
        if not (grad_state.enabled and needing):
            return outputs

        edges = tuple(gradient_edge(a) for a in needing)
        if isinstance(outputs, tuple):
            return tuple(_delay_error(o, edges) for o in outputs)
        return _delay_error(outputs, edges)

    return wrapper


def _delay_error(out, edges):
    if not isinstance(out, Tensor):
        return out
    return Tensor._wrap(out._data, True, Error(edges, ONCE_DIFFERENTIABLE))
