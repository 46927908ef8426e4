"""Anomaly mode: forward stacks on backward errors, and NaN checks at the failing node.

Tests taking `lib` run on dyngrad and on the real torch (skipped without it).
"""

from __future__ import annotations

import warnings

import pytest

import dyngrad

from .conftest import first_line

ENABLED = (
    "Anomaly Detection has been enabled. This mode will increase the runtime and should "
    "only be enabled for debugging."
)


def run_recording(fn):
    """Run `fn`, returning (its error or None, the warnings it issued)."""
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        try:
            fn()
        except RuntimeError as exc:
            return exc, record
    return None, record


def nan_through_sqrt(lib):
    x = lib.tensor([0.0, 1.0], requires_grad=True)
    (x.sqrt() * 0).sum().backward()  # 0 * inf at sqrt's backward


def test_flags_default_off(lib):
    assert not lib.is_anomaly_enabled() and lib.is_anomaly_check_nan_enabled()


def test_detect_anomaly_warns_and_restores(lib):
    with pytest.warns(UserWarning) as record:
        with lib.autograd.detect_anomaly():
            assert lib.is_anomaly_enabled()
    assert str(record[0].message) == ENABLED
    assert not lib.is_anomaly_enabled()


def test_nan_in_backward_raises_at_its_node(lib):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with lib.autograd.detect_anomaly():
            with pytest.raises(RuntimeError) as info:
                nan_through_sqrt(lib)
    assert str(info.value) == "Function 'SqrtBackward0' returned nan values in its 0th output."


def test_nan_check_names_the_output_index(lib):
    x = lib.tensor([0.0, 1.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with lib.autograd.set_detect_anomaly(True):
            with pytest.raises(RuntimeError) as info:
                (x / x).sum().backward()
    assert str(info.value) == "Function 'DivBackward0' returned nan values in its 1th output."


def test_backward_error_shows_the_forward_stack(lib):
    def forward_and_backward():
        x = lib.tensor([0.0, 1.0], requires_grad=True)
        y = x.sqrt()  # the forward line the warning must show
        (y * 0).sum().backward()

    with lib.autograd.set_detect_anomaly(True):
        error, record = run_recording(forward_and_backward)
    assert error is not None
    messages = [str(w.message) for w in record if issubclass(w.category, UserWarning)]
    assert len(messages) == 1
    assert messages[0].startswith(
        "Error detected in SqrtBackward0. Traceback of forward call that caused the error:\n"
    )
    assert "y = x.sqrt()  # the forward line the warning must show" in messages[0]


def test_custom_function_error_shows_its_forward_call(lib):
    class Boom(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            raise ValueError("boom")

    def forward_and_backward():
        y = Boom.apply(lib.ones(2, requires_grad=True))
        y.sum().backward()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with lib.autograd.detect_anomaly():
            with warnings.catch_warnings(record=True) as record:
                warnings.simplefilter("always")
                with pytest.raises(ValueError, match="boom"):
                    forward_and_backward()
    message = str(record[0].message)
    assert message.startswith("Error detected in BoomBackward. Traceback of forward call")
    assert "y = Boom.apply(lib.ones(2, requires_grad=True))" in message


def test_check_nan_false_only_keeps_stacks(lib):
    with lib.autograd.set_detect_anomaly(True, check_nan=False):
        assert (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()) == (True, False)
        x = lib.tensor([0.0, 1.0], requires_grad=True)
        (x.sqrt() * 0).sum().backward()
    assert x.grad.tolist()[1] == 0.0 and x.grad.isnan().tolist() == [True, False]
    assert (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()) == (False, True)


def test_set_detect_anomaly_as_a_function(lib):
    lib.autograd.set_detect_anomaly(True)
    try:
        assert lib.is_anomaly_enabled()
        error, _ = run_recording(lambda: nan_through_sqrt(lib))
        assert str(error) == "Function 'SqrtBackward0' returned nan values in its 0th output."
    finally:
        lib.autograd.set_detect_anomaly(False)
    error, _ = run_recording(lambda: nan_through_sqrt(lib))
    assert error is None  # off again: nan flows silently, as in PyTorch


def test_nan_gradients_pass_silently_without_anomaly_mode(lib):
    x = lib.tensor([0.0, 1.0], requires_grad=True)
    error, record = run_recording(lambda: (x.sqrt() * 0).sum().backward())
    assert error is None and record == []  # no NumPy RuntimeWarning either
    assert x.grad.isnan().tolist() == [True, False]


def test_anomaly_mode_is_global_not_thread_local(lib):
    import threading

    seen = []
    with lib.autograd.set_detect_anomaly(True):
        thread = threading.Thread(target=lambda: seen.append(lib.is_anomaly_enabled()))
        thread.start()
        thread.join()
    assert seen == [True]


def test_forward_stacks_are_kept_only_in_anomaly_mode():
    x = dyngrad.ones(2, requires_grad=True)
    assert (x * 2).grad_fn._trace is None
    with dyngrad.autograd.set_detect_anomaly(True):
        traced = (x * 2).grad_fn._trace
    assert traced and "test_anomaly.py" in "".join(traced)
    assert not any("/dyngrad/" in line.split("\n")[0] for line in traced)


def test_error_in_anomaly_mode_keeps_pytorchs_first_line():
    x = dyngrad.ones(3, requires_grad=True)
    with dyngrad.autograd.set_detect_anomaly(True):
        y = x.sigmoid()
        y.mul_(2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(RuntimeError) as info:
                y.sum().backward()
    assert first_line(info).startswith("one of the variables needed for gradient computation")


def _nan_at(lib, index: int):
    class Nan(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a.sum(0, keepdim=True)

        @staticmethod
        def backward(ctx, g):
            grad = g.clone().expand(4)
            grad[0] = 0  # one element of an expanded tensor: no overlap
            grad[0] /= 0
            return (grad, None) if index == 0 else (None, grad)

    return Nan


def test_a_node_made_outside_anomaly_mode_has_no_forward_information(lib):
    x = lib.rand(4, requires_grad=True)
    out = _nan_at(lib, 0).apply(x, x)

    def backward():
        with lib.autograd.detect_anomaly():
            out.backward()

    error, caught = run_recording(backward)
    assert str(error) == "Function 'NanBackward' returned nan values in its 0th output."
    assert str(caught[1].message).startswith(
        "Error detected in NanBackward. No forward pass information available. Enable detect "
        "anomaly during forward pass for more information."
    )


def test_a_node_made_by_a_backward_names_the_node_that_made_it(lib):
    class Inner(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * 2.0 + b

        @staticmethod
        def backward(ctx, g):
            g2 = g.clone()
            g2[0] = 0
            g2[0] /= 0
            return g.clone(), g2

    class Outer(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sum(0, keepdim=True)

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            g = g.clone().expand(4)
            return Inner.apply(g * x, g + x)

    def run():
        with lib.autograd.detect_anomaly():
            x = lib.rand(4, requires_grad=True)
            (grad,) = lib.autograd.grad(Outer.apply(x), x, create_graph=True)
            grad.sum().backward()

    error, caught = run_recording(run)
    assert str(error) == "Function 'InnerBackward' returned nan values in its 1th output."
    messages = [str(w.message) for w in caught[1:]]
    assert messages[0].startswith("Error detected in InnerBackward. Traceback of forward call")
    assert "Inner.apply" in messages[0]
    assert messages[1].startswith(
        "\n\nPrevious calculation was induced by OuterBackward. Traceback of forward call that "
        "induced the previous calculation:\n"
    )
    assert "Outer.apply" in messages[1]


def test_with_warnings_as_errors_the_trace_is_printed_and_the_error_kept(lib, capsys):
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        with warnings.catch_warnings():
            with lib.autograd.detect_anomaly():
                warnings.simplefilter("error")
                a = lib.randn(5, requires_grad=True)
                d1 = a + 1
                d2 = d1**2
                d1 += 1
                lib.autograd.grad(d2.sum(), a)
    if lib is dyngrad:  # torch prints from C++, past pytest's capture of sys.stderr
        assert "Error detected in PowBackward0" in capsys.readouterr().err
