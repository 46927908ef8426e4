"""Grad modes: `no_grad`, `enable_grad`, `set_grad_enabled`, `inference_mode` (thread-local)."""

from __future__ import annotations

import functools
import inspect
import threading
import warnings

from .._tensor import INFERENCE_THREADS, above

__all__ = [
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "is_view_replay_enabled",
    "_force_original_view_tracking",
]


class _State(threading.local):
    # Note [Grad mode]
    # One flag per thread, read by every op before it builds a node: PyTorch's grad mode is
    # thread-local, so a no_grad block in a DataLoader worker thread leaves the main one alone.
    def __init__(self):
        self.enabled = True
        self.inference = False
        self.backward = False  # the engine is running formulas (grad off by design, not a cut)
        self.view_replay = False  # See Note [View replay] in ops/table/record.py


state = _State()
above.grad_mode = state  # See Note [Calls up the layers]


def is_grad_enabled() -> bool:
    """Matches `torch.is_grad_enabled`."""
    return state.enabled


def is_inference_mode_enabled() -> bool:
    """Matches `torch.is_inference_mode_enabled`."""
    return state.inference


def is_view_replay_enabled() -> bool:
    """Matches `torch.autograd.is_view_replay_enabled`."""
    return state.view_replay


class _DecoratorContextManager:
    """A context manager that also decorates functions (and generators), as PyTorch's do."""

    def __call__(self, func):
        if inspect.isclass(func):
            warnings.warn(
                "Decorating classes is deprecated and will be disabled in future versions. You "
                "should only decorate functions or methods. To preserve the current behavior of "
                "class decoration, you can directly decorate the `__init__` method and nothing "
                "else.",
                FutureWarning,
                stacklevel=2,
            )
            cls = func
            func = lambda *args, **kwargs: cls(*args, **kwargs)  # noqa: E731
        if inspect.isgeneratorfunction(func):
            return self._wrap_generator(func)

        @functools.wraps(func)
        def decorated(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)

        return decorated

    def _wrap_generator(self, func):
        # The generator runs under the mode each time control enters it (send, throw, close),
        # and its caller gets its own mode back at every yield.
        @functools.wraps(func)
        def decorated(*args, **kwargs):
            gen = func(*args, **kwargs)
            try:
                with self.clone():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException as exc:  # forward throw() into the generator
                        with self.clone():
                            response = gen.throw(exc)
                    else:
                        with self.clone():
                            response = gen.send(request)
            except StopIteration as stop:
                return stop.value

        return decorated

    def clone(self):
        return type(self)()


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """Also decorates without parentheses: `@torch.no_grad` as well as `@torch.no_grad()`."""

    def __new__(cls, func=None):
        if func is None:
            return super().__new__(cls)
        return cls()(func)


class no_grad(_NoParamDecoratorContextManager):
    """Matches `torch.no_grad`: ops inside record no graph."""

    def __init__(self):
        self.prev = False

    def __enter__(self):
        self.prev = state.enabled
        state.enabled = False

    def __exit__(self, *exc):
        state.enabled = self.prev


class enable_grad(_NoParamDecoratorContextManager):
    """Matches `torch.enable_grad`."""

    def __init__(self):
        self.prev = False

    def __enter__(self):
        self.prev = state.enabled
        state.enabled = True

    def __exit__(self, *exc):
        state.enabled = self.prev


class set_grad_enabled(_DecoratorContextManager):
    """Matches `torch.set_grad_enabled`: takes effect at once, and also works as a context."""

    def __init__(self, mode: bool):
        self.prev = state.enabled
        self.mode = bool(mode)
        state.enabled = self.mode

    def __call__(self, func):
        # as a decorator it must not leave grad mode changed once the function is defined
        state.enabled = self.prev
        return super().__call__(func)

    def __enter__(self):
        state.enabled = self.mode

    def __exit__(self, *exc):
        state.enabled = self.prev

    def __repr__(self) -> str:
        return f"torch.autograd.grad_mode.set_grad_enabled(mode={self.mode})"

    def clone(self):
        return type(self)(self.mode)


class inference_mode(_DecoratorContextManager):
    """Matches `torch.inference_mode`: like no_grad, and tensors made inside are inference
    tensors (See Note [Inference tensors] in _tensor.py).

    dyngrad departs from torch in one way: `enable_grad()` inside inference mode records
    history again (PyTorch keeps recording off there while reporting grad mode on).
    """

    def __init__(self, mode: bool = True):
        self.mode = bool(mode)
        self.prev = (True, False)

    def __new__(cls, mode=True):
        if callable(mode) and not isinstance(mode, bool):  # @inference_mode without parentheses
            return cls()(mode)
        return super().__new__(cls)

    def __enter__(self):
        self.prev = (state.enabled, state.inference)
        # inference_mode(False) is a way back to grad mode, even inside no_grad
        state.enabled = not self.mode
        state.inference = self.mode
        _note_inference_thread()

    def __exit__(self, *exc):
        state.enabled, state.inference = self.prev
        _note_inference_thread()

    def clone(self):
        return type(self)(self.mode)


DEFAULT_MODES = (True, False, False, False)


def thread_modes() -> tuple:
    """This thread's modes, for a thread that works on its behalf (reentrant backward)."""
    return (state.enabled, state.inference, state.backward, state.view_replay)


def set_thread_modes(modes: tuple) -> None:
    state.enabled, state.inference, state.backward, state.view_replay = modes
    _note_inference_thread()


def _note_inference_thread() -> None:
    if state.inference:
        INFERENCE_THREADS.add(threading.get_ident())
    else:
        INFERENCE_THREADS.discard(threading.get_ident())


class _force_original_view_tracking(_DecoratorContextManager):
    """Matches `torch.autograd._force_original_view_tracking`: takes effect at once (as a
    function too); a view rebuilt after an in-place write then replays its original view ops
    instead of becoming `AsStridedBackward0`."""

    def __init__(self, mode: bool):
        self.prev = state.view_replay
        self.mode = bool(mode)
        state.view_replay = self.mode

    def __call__(self, func):
        state.view_replay = self.prev
        return super().__call__(func)

    def __enter__(self):
        state.view_replay = self.mode

    def __exit__(self, *exc):
        state.view_replay = self.prev

    def clone(self):
        return type(self)(self.mode)
