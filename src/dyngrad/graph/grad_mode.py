"""Grad modes: `no_grad`, `enable_grad`, `set_grad_enabled`, `inference_mode` (thread-local)."""

from __future__ import annotations

import functools
import inspect
import threading
import warnings

from .._tensor import above

__all__ = [
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
]


class _State(threading.local):
    # Note [Grad mode]
    # One flag per thread, read by every op before it builds a node: PyTorch's grad mode is
    # thread-local, so a no_grad block in a DataLoader worker thread leaves the main one alone.
    def __init__(self):
        self.enabled = True
        self.inference = False
        self.backward = False  # the engine is running formulas (grad off by design, not a cut)


state = _State()
above.grad_mode = state  # See Note [Calls up the layers]


def is_grad_enabled() -> bool:
    """Matches `torch.is_grad_enabled`."""
    return state.enabled


def is_inference_mode_enabled() -> bool:
    """Matches `torch.is_inference_mode_enabled`."""
    return state.inference


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
        @functools.wraps(func)
        def decorated(*args, **kwargs):
            gen = func(*args, **kwargs)
            with self.clone():
                response = gen.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    gen.close()
                    raise
                except BaseException as exc:  # forward throw() into the generator
                    with self.clone():
                        response = gen.throw(exc)
                else:
                    with self.clone():
                        try:
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
    """Matches `torch.inference_mode`: like no_grad; tensors made inside are inference tensors.

    dyngrad departs from torch in one way: an inference tensor used later under grad mode is
    treated as a constant instead of raising.
    """

    def __init__(self, mode: bool = True):
        self.mode = bool(mode)
        self.prev = (True, False)

    def __new__(cls, mode_or_func=True):
        if callable(mode_or_func) and not isinstance(mode_or_func, bool):
            return cls()(mode_or_func)
        return super().__new__(cls)

    def __enter__(self):
        self.prev = (state.enabled, state.inference)
        # inference_mode(False) is a way back to grad mode, even inside no_grad
        state.enabled = not self.mode
        state.inference = self.mode

    def __exit__(self, *exc):
        state.enabled, state.inference = self.prev

    def clone(self):
        return type(self)(self.mode)
