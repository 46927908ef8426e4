"""torch.testing (assert_close, assert_allclose, make_tensor) and the top-level globals.

Messages are compared with the real torch's, word for word, where torch is installed.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import dyngrad


@pytest.fixture(params=["dyngrad", "torch"])
def lib(request):
    if request.param == "torch":
        return pytest.importorskip("torch")
    return dyngrad


def outcome(call, lib) -> str:
    """'ok', or the error as `Type: message` with dyngrad's class path spelled as torch's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        try:
            call(lib)
        except Exception as error:
            text = f"{type(error).__name__}: {error}"
            return text.replace("dyngrad._tensor.Tensor", "torch.Tensor")
        return "ok"


def nan_pair(lib):
    return lib.tensor([1.0, math.nan]), lib.tensor([1.0, math.nan])


CASES = {
    "one_mismatch": lambda L: L.testing.assert_close(
        L.tensor([1.0, 2, 3]), L.tensor([1.0, 2.5, 3])
    ),
    "matrix": lambda L: L.testing.assert_close(
        L.tensor([[1.0, 2], [3, 4]]), L.tensor([[1.0, 2], [3.1, 4.2]])
    ),
    "zero_dim": lambda L: L.testing.assert_close(L.tensor(1.0), L.tensor(1.1)),
    "integers": lambda L: L.testing.assert_close(L.tensor([1, 2]), L.tensor([1, 3])),
    "nan": lambda L: L.testing.assert_close(*nan_pair(L)),
    "equal_nan": lambda L: L.testing.assert_close(*nan_pair(L), equal_nan=True),
    "nan_vs_number": lambda L: L.testing.assert_close(
        L.tensor([1.0, math.nan]), L.tensor([1.0, 2])
    ),
    "exact": lambda L: L.testing.assert_close(
        L.tensor([1.0, 0]), L.tensor([1.0, 0.5]), rtol=0, atol=0
    ),
    "dtype": lambda L: L.testing.assert_close(L.tensor([1.0, 2]), L.tensor([1.0, 2]).double()),
    "promoted": lambda L: L.testing.assert_close(
        L.tensor([1.0, 2]), L.tensor([1.0, 2.1]).double(), check_dtype=False
    ),
    "shape": lambda L: L.testing.assert_close(L.tensor([1.0, 2]), L.tensor([1.0, 2, 3])),
    "one_tolerance": lambda L: L.testing.assert_close(L.tensor([1.0]), L.tensor([1.0]), rtol=1e-3),
    "msg": lambda L: L.testing.assert_close(L.tensor([1.0, 2]), L.tensor([1.0, 3]), msg="custom"),
    "msg_callable": lambda L: L.testing.assert_close(
        L.tensor([1.0, 2]), L.tensor([1.0, 3]), msg=lambda m: "H\n" + m
    ),
    "nested": lambda L: L.testing.assert_close(
        [L.tensor([1.0]), (L.tensor([2.0]), L.tensor([3.0]))],
        [L.tensor([1.0]), (L.tensor([2.0]), L.tensor([3.5]))],
    ),
    "mapping": lambda L: L.testing.assert_close(
        {"a": L.tensor([1.0]), "b": 2.0}, {"a": L.tensor([1.0]), "b": 2.5}
    ),
    "keys": lambda L: L.testing.assert_close({"a": 1}, {"b": 1}),
    "lengths": lambda L: L.testing.assert_close([1, 2], [1]),
    "number_types": lambda L: L.testing.assert_close(1, 1.0),
    "numbers": lambda L: L.testing.assert_close(1.0, 1.5),
    "booleans": lambda L: L.testing.assert_close(True, False),
    "none": lambda L: L.testing.assert_close(None, 1),
    "tensor_vs_list": lambda L: L.testing.assert_close(L.tensor([1.0]), [1.0]),
    "arrays": lambda L: L.testing.assert_close(np.array([1.0, 2]), np.array([1.0, 2.001])),
    "float16": lambda L: L.testing.assert_close(
        L.tensor([1.0, 2], dtype=L.float16), L.tensor([1.0, 2.01], dtype=L.float16)
    ),
    "bools": lambda L: L.testing.assert_close(L.tensor([True, False]), L.tensor([True, True])),
    "stride": lambda L: L.testing.assert_close(L.ones(2, 3).t(), L.ones(3, 2), check_stride=True),
    "stride_ignored": lambda L: L.testing.assert_close(L.ones(2, 3).t(), L.ones(3, 2)),
    "expected_zero": lambda L: L.testing.assert_close(L.zeros(2), L.tensor([0.0, 1e-3])),
    "requires_grad": lambda L: L.testing.assert_close(
        L.tensor([1.0, 2, 3], requires_grad=True) * 2, L.tensor([2.0, 4, 6.1])
    ),
    "within_tolerance": lambda L: L.testing.assert_close(
        L.tensor([1e-6, 5.0]), L.tensor([0.0, 5.00001])
    ),
    "ints_vs_floats": lambda L: L.testing.assert_close(
        L.tensor([1, 2]), L.tensor([1, 2.5]), check_dtype=False
    ),
    "infinities": lambda L: L.testing.assert_close(L.tensor([math.inf]), L.tensor([-math.inf])),
    "empty": lambda L: L.testing.assert_close(L.tensor([]), L.tensor([])),
    "allclose_passes": lambda L: L.testing.assert_allclose(L.tensor([1.0, 2]), [1.0, 2.0001]),
    "allclose_fails": lambda L: L.testing.assert_allclose(L.tensor([1.0, 2]), [1.0, 2.1]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_assert_close_matches_torch_word_for_word(torch, name):
    assert outcome(CASES[name], dyngrad) == outcome(CASES[name], torch)


def test_assert_close_message_layout():
    with pytest.raises(AssertionError) as info:
        dyngrad.testing.assert_close(
            dyngrad.tensor([1.0, 2.0, 3.0]), dyngrad.tensor([1.0, 2.5, 3.0])
        )
    assert str(info.value) == (
        "Tensor-likes are not close!\n\n"
        "Mismatched elements: 1 / 3 (33.3%)\n"
        "Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 0.20000000298023224 at index (1,) (up to 1.3e-06 allowed)"
    )


def test_assert_close_names_the_failing_item():
    with pytest.raises(AssertionError) as info:
        dyngrad.testing.assert_close({"a": [1.0, 2.0]}, {"a": [1.0, 2.5]})
    assert str(info.value).endswith("\n\nThe failure occurred for item ['a'][1]")


def test_assert_close_accepts_the_default_tolerances(lib):
    lib.testing.assert_close(lib.tensor([1.0]), lib.tensor([1.0 + 1e-6]))
    lib.testing.assert_close(
        lib.tensor([100.0], dtype=lib.float64), lib.tensor([100.0 + 1e-5], dtype=lib.float64)
    )
    with pytest.raises(AssertionError):
        lib.testing.assert_close(
            lib.tensor([1.0], dtype=lib.float64), lib.tensor([1.0 + 1e-6], dtype=lib.float64)
        )


def test_assert_allclose_is_deprecated(lib):
    with pytest.warns(FutureWarning, match="`torch.testing.assert_allclose\\(\\)` is deprecated"):
        lib.testing.assert_allclose(lib.tensor([1.0]), [1.0])


# ---- make_tensor ---------------------------------------------------------------------------


def test_make_tensor_shape_dtype_and_range(lib):
    make = lib.testing.make_tensor
    assert make(2, 3, dtype=lib.float32, device="cpu").shape == (2, 3)
    assert make((2, 3), dtype=lib.float64, device="cpu").dtype == lib.float64
    assert make([4], dtype=lib.complex64, device="cpu").dtype == lib.complex64
    t = make(1000, dtype=lib.float32, device="cpu", low=-2, high=3)
    assert -2 <= t.min().item() and t.max().item() < 3
    ints = make(1000, dtype=lib.int8, device="cpu", exclude_zero=True)
    assert -9 <= ints.min().item() and ints.max().item() <= 9 and not (ints == 0).any()
    assert make(10, dtype=lib.bool, device="cpu").dtype == lib.bool


def test_make_tensor_requires_grad_and_noncontiguous(lib):
    make = lib.testing.make_tensor
    t = make(3, dtype=lib.float32, device="cpu", requires_grad=True)
    assert t.requires_grad and t.is_leaf
    t = make(2, 3, dtype=lib.float32, device="cpu", noncontiguous=True)
    assert t.shape == (2, 3) and not t.is_contiguous() and t.stride() == (6, 2)
    assert make(1, dtype=lib.float32, device="cpu", noncontiguous=True).is_contiguous()


@pytest.mark.parametrize(
    "options, message",
    [
        (
            {"dtype": "float32", "low": 5, "high": 1},
            "`low` must be less than `high`, but got 5 >= 1",
        ),
        (
            {"dtype": "uint8", "low": -5, "high": -1},
            "The value interval specified by `low` and `high` is [-5, -1), but torch.uint8 only "
            "supports [0, 256)",
        ),
        (
            {"dtype": "int64", "requires_grad": True},
            "`requires_grad=True` is not supported for boolean and integral dtypes, but got "
            "dtype=torch.int64",
        ),
        (
            {"dtype": "float32", "low": math.nan},
            "`low` and `high` cannot be NaN, but got low=nan and high=9",
        ),
    ],
)
def test_make_tensor_rejects_bad_arguments(lib, options, message):
    options = dict(options, dtype=getattr(lib, options["dtype"]))
    with pytest.raises(ValueError) as info:
        lib.testing.make_tensor(3, device="cpu", **options)
    assert str(info.value) == message


# ---- globals -------------------------------------------------------------------------------


def test_constants(lib):
    assert (lib.pi, lib.e, lib.inf) == (math.pi, math.e, math.inf)
    assert math.isnan(lib.nan) and lib.newaxis is None


def test_float32_matmul_precision_is_stored(lib):
    assert lib.get_float32_matmul_precision() == "highest"
    try:
        lib.set_float32_matmul_precision("medium")
        assert lib.get_float32_matmul_precision() == "medium"
        with pytest.warns(UserWarning, match="low is not one of 'highest', 'high', or 'medium'"):
            lib.set_float32_matmul_precision("low")
        assert lib.get_float32_matmul_precision() == "medium"
        with pytest.raises(
            RuntimeError, match="set_float32_matmul_precision expects a str, but got int"
        ):
            lib.set_float32_matmul_precision(3)
    finally:
        lib.set_float32_matmul_precision("highest")


def test_warn_always_flag(lib):
    assert lib.is_warn_always_enabled() is False
    try:
        lib.set_warn_always(True)
        assert lib.is_warn_always_enabled() is True
        with pytest.raises(RuntimeError, match="setWarnOnlyOnce expects a bool, but got str"):
            lib.set_warn_always("yes")
    finally:
        lib.set_warn_always(False)
