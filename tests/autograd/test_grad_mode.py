"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode; thread-local.

Tests taking `lib` run on dyngrad and on the real torch (skipped without it).
"""

from __future__ import annotations

import threading

import pytest


def test_no_grad_context(lib):
    x = lib.ones(2, requires_grad=True)
    with lib.no_grad():
        assert not lib.is_grad_enabled()
        y = x * 2
    assert lib.is_grad_enabled()
    assert (y.requires_grad, y.grad_fn) == (False, None)


def test_enable_grad_inside_no_grad(lib):
    x = lib.ones(2, requires_grad=True)
    with lib.no_grad():
        with lib.enable_grad():
            assert lib.is_grad_enabled() and (x * 2).requires_grad
        assert not lib.is_grad_enabled()


def test_modes_restore_after_an_exception(lib):
    with pytest.raises(KeyError):
        with lib.no_grad():
            raise KeyError
    assert lib.is_grad_enabled()


def test_a_no_grad_object_can_be_reused(lib):
    guard = lib.no_grad()
    with guard:
        pass
    with guard:
        assert not lib.is_grad_enabled()
    assert lib.is_grad_enabled()


@pytest.mark.parametrize("parens", [True, False])
def test_no_grad_as_a_decorator(lib, parens):
    x = lib.ones(2, requires_grad=True)

    def double():
        return x * 2

    decorated = lib.no_grad()(double) if parens else lib.no_grad(double)
    assert not decorated().requires_grad
    assert double().requires_grad and lib.is_grad_enabled()


@pytest.mark.parametrize("parens", [True, False])
def test_enable_grad_as_a_decorator(lib, parens):
    def enabled():
        return lib.is_grad_enabled()

    decorated = lib.enable_grad()(enabled) if parens else lib.enable_grad(enabled)
    with lib.no_grad():
        assert decorated() and not enabled()


def test_decorators_keep_the_function_name(lib):
    @lib.no_grad()
    def compute():
        """Doc."""

    assert (compute.__name__, compute.__doc__) == ("compute", "Doc.")


def test_no_grad_decorates_generator_functions(lib):
    @lib.no_grad()
    def gen():
        for _ in range(2):
            received = yield lib.is_grad_enabled()
            assert received is None

    produced = []
    for enabled in gen():
        produced.append(enabled)
        assert lib.is_grad_enabled()  # the caller's mode between steps
    assert produced == [False, False]


def test_generator_returns_its_value_through_the_decorator(lib):
    @lib.no_grad()
    def gen():
        yield 1
        return "done"

    g = gen()
    next(g)
    with pytest.raises(StopIteration) as info:
        next(g)
    assert info.value.value == "done"


@pytest.mark.parametrize("mode", ["no_grad", "enable_grad"])
def test_throw_into_a_decorated_generator_runs_under_its_mode(lib, mode):
    inside = mode == "enable_grad"
    outside = lib.no_grad() if inside else lib.enable_grad()

    @getattr(lib, mode)()
    def gen(n=4):
        raised = False
        for i in range(n):
            try:
                assert lib.is_grad_enabled() is inside
                yield -i if raised else i
            except KeyError:
                assert lib.is_grad_enabled() is inside
                raised = True

    with outside:
        g = gen()
        assert next(g) == 0
        results = []
        with pytest.raises(StopIteration):
            while True:
                results.append(g.throw(KeyError))
        assert results == [-1, -2, -3] and lib.is_grad_enabled() is not inside


def test_close_reaches_a_decorated_generator_under_its_mode(lib):
    seen = []

    @lib.no_grad()
    def gen():
        try:
            yield 1
            yield 2
        except GeneratorExit:
            seen.append(lib.is_grad_enabled())
            raise

    g = gen()
    next(g)
    g.close()
    assert seen == [False] and lib.is_grad_enabled()


def test_an_exception_thrown_into_a_decorated_generator_propagates(lib):
    @lib.enable_grad()
    def gen():
        try:
            yield 1
        except KeyError:
            raise ValueError("secondary") from None

    g = gen()
    next(g)
    with lib.no_grad(), pytest.raises(ValueError, match="secondary"):
        g.throw(KeyError)


def test_decorating_a_class_is_deprecated(lib):
    class Model:
        def __init__(self):
            self.enabled = lib.is_grad_enabled()

    with pytest.warns(FutureWarning, match="Decorating classes is deprecated"):
        make = lib.no_grad()(Model)
    assert make().enabled is False


def test_set_grad_enabled_as_a_function(lib):
    x = lib.ones(2, requires_grad=True)
    lib.set_grad_enabled(False)
    try:
        assert not lib.is_grad_enabled() and not (x * 2).requires_grad
    finally:
        lib.set_grad_enabled(True)
    assert (x * 2).requires_grad


@pytest.mark.parametrize("mode", [True, False])
def test_set_grad_enabled_as_a_context(lib, mode):
    with lib.no_grad():
        with lib.set_grad_enabled(mode):
            assert lib.is_grad_enabled() is mode
        assert not lib.is_grad_enabled()


def test_set_grad_enabled_as_a_decorator_leaves_the_mode_alone(lib):
    @lib.set_grad_enabled(False)
    def disabled():
        return lib.is_grad_enabled()

    assert lib.is_grad_enabled()  # defining the function changed nothing
    assert disabled() is False and lib.is_grad_enabled()


def test_set_grad_enabled_repr(lib):
    assert (
        repr(lib.set_grad_enabled(True)) == "torch.autograd.grad_mode.set_grad_enabled(mode=True)"
    )


def test_inference_mode(lib):
    x = lib.ones(2, requires_grad=True)
    assert not lib.is_inference_mode_enabled()
    with lib.inference_mode():
        y = x * 2
        assert (lib.is_grad_enabled(), lib.is_inference_mode_enabled()) == (False, True)
        assert (y.requires_grad, y.is_leaf, y.grad_fn) == (False, True, None)
    assert (lib.is_grad_enabled(), lib.is_inference_mode_enabled()) == (True, False)


def test_inference_mode_false_turns_grad_back_on(lib):
    with lib.inference_mode():
        with lib.inference_mode(False):
            assert (lib.is_grad_enabled(), lib.is_inference_mode_enabled()) == (True, False)
        assert lib.is_inference_mode_enabled()
    with lib.no_grad():
        with lib.inference_mode(False):
            assert lib.is_grad_enabled()


@pytest.mark.parametrize("parens", [True, False])
def test_inference_mode_as_a_decorator(lib, parens):
    def inside():
        return lib.is_inference_mode_enabled()

    decorated = lib.inference_mode()(inside) if parens else lib.inference_mode(inside)
    assert decorated() and not lib.is_inference_mode_enabled()


def test_grad_modes_live_in_autograd_too(lib):
    assert lib.autograd.no_grad is lib.no_grad
    assert lib.autograd.enable_grad is lib.enable_grad
    assert lib.autograd.set_grad_enabled is lib.set_grad_enabled


def test_grad_mode_is_thread_local(lib):
    seen = {}
    x = lib.ones(2, requires_grad=True)

    def worker():
        seen["enabled"] = lib.is_grad_enabled()
        seen["tracked"] = (x * 2).requires_grad

    with lib.no_grad():
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
    assert seen == {"enabled": True, "tracked": True}


def test_a_threads_no_grad_leaves_the_main_thread_alone(lib):
    inside, release = threading.Event(), threading.Event()

    def worker():
        with lib.no_grad():
            inside.set()
            release.wait(5)

    thread = threading.Thread(target=worker)
    thread.start()
    inside.wait(5)
    try:
        assert lib.is_grad_enabled()
        assert (lib.ones(1, requires_grad=True) * 2).requires_grad
    finally:
        release.set()
        thread.join()
