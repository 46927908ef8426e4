"""Default device, deterministic algorithms, set_anomaly_enabled and the Tensor memory
predicates, on dyngrad and on torch."""

from __future__ import annotations

import pytest


def test_default_device_is_cpu_and_can_be_set_to_cpu(lib):
    assert str(lib.get_default_device()) == "cpu"
    lib.set_default_device("cpu")
    lib.set_default_device(None)
    assert lib.get_default_device().type == "cpu"


def test_deterministic_algorithms_round_trip(lib):
    assert not lib.are_deterministic_algorithms_enabled()
    try:
        lib.use_deterministic_algorithms(True, warn_only=True)
        assert lib.are_deterministic_algorithms_enabled()
        assert lib.is_deterministic_algorithms_warn_only_enabled()
        assert lib.get_deterministic_debug_mode() == 1
        lib.set_deterministic_debug_mode("error")
        assert lib.get_deterministic_debug_mode() == 2
        assert not lib.is_deterministic_algorithms_warn_only_enabled()
    finally:
        lib.use_deterministic_algorithms(False)
    assert lib.get_deterministic_debug_mode() == 0
    with pytest.raises(RuntimeError, match="^invalid value of debug_mode"):
        lib.set_deterministic_debug_mode("loud")


def test_set_anomaly_enabled(lib):
    try:
        lib.set_anomaly_enabled(True)
        assert lib.is_anomaly_enabled() and lib.is_anomaly_check_nan_enabled()
        lib.set_anomaly_enabled(True, False)
        assert not lib.is_anomaly_check_nan_enabled()
    finally:
        lib.set_anomaly_enabled(False)
    assert not lib.is_anomaly_enabled()


def test_memory_predicates_on_the_cpu(lib):
    x = lib.ones(3)
    assert not x.is_shared() and not x.is_pinned()
    assert x.share_memory_() is x and x.is_shared()
    y = x.new_empty_strided((2, 3), (1, 2))
    assert y.stride() == (1, 2) and y.dtype == x.dtype and tuple(y.shape) == (2, 3)
    assert x.new_empty_strided((2,), (1,), dtype=lib.float64).dtype == lib.float64


@pytest.mark.parametrize("name", ["float32", "float64", "float16", "bfloat16", "complex64"])
def test_finfo_matches_torch(torch, name):
    import dyngrad

    ours, theirs = dyngrad.finfo(getattr(dyngrad, name)), torch.finfo(getattr(torch, name))
    assert repr(ours) == repr(theirs) and ours.dtype == theirs.dtype
    for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
        assert getattr(ours, field) == getattr(theirs, field), field


@pytest.mark.parametrize("name", ["int8", "int16", "int32", "int64", "uint8"])
def test_iinfo_matches_torch(torch, name):
    import dyngrad

    ours, theirs = dyngrad.iinfo(getattr(dyngrad, name)), torch.iinfo(getattr(torch, name))
    assert repr(ours) == repr(theirs) and (ours.bits, ours.min, ours.max) == (
        theirs.bits,
        theirs.min,
        theirs.max,
    )


def test_finfo_and_iinfo_refuse_the_other_kind(lib):
    with pytest.raises(TypeError, match="^torch.finfo\\(\\) requires a floating point"):
        lib.finfo(lib.int32)
    with pytest.raises(TypeError, match="^torch.iinfo\\(\\) requires an integer"):
        lib.iinfo(lib.float32)
    assert lib.finfo() == lib.finfo(lib.float32)


def test_get_device_and_detach_(lib):
    x = lib.ones(2, requires_grad=True) * 2
    assert lib.get_device(x) == -1 and x.get_device() == -1
    assert lib.detach_(x) is x and not x.requires_grad
