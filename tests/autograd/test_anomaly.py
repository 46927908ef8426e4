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
