"""Bad input named in issue 12: PyTorch's exception class and first line, or its value.

The fuzz table (`test_fuzz.py`) sweeps these families against torch; these cases pin the
named ones down with PyTorch's text written out, so they hold without torch installed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import dyngrad as t

from .fuzz_run import first_line

ENV = {"t": t, "F": t.nn.functional, "nan": math.nan, "inf": math.inf}


def _raises(expr: str, error: type, line: str) -> None:
    with pytest.raises(error) as info:
        eval(expr, dict(ENV))
    assert type(info.value) is error
    assert first_line(info.value) == line.strip("'\"")


def _alloc(nbytes: int) -> str:
    return (
        f"DefaultCPUAllocator: can't allocate memory: you tried to allocate {nbytes} bytes. "
        "Error code 12 (Cannot allocate memory)"
    )


def _unpack(fn: str, pos: int, reason: str, name: str = "size") -> str:
    return (
        f"{fn}(): argument '{name}' failed to unpack the object at pos {pos} with error \"{reason}"
    )


SIZES = [
    # negative sizes: `zeros` has its own words, the other factories PyTorch's shared ones
    ("t.zeros(-1)", RuntimeError, "zeros: Dimension size must be non-negative."),
    ("t.ones(-1)", RuntimeError, "Trying to create tensor with negative dimension -1: [-1]"),
    ("t.empty(2, -3)", RuntimeError, "Trying to create tensor with negative dimension -3: [2, -3]"),
    (
        "t.full((-1,), 1.0)",
        RuntimeError,
        "Trying to create tensor with negative dimension -1: [-1]",
    ),
    ("t.randn(-1)", RuntimeError, "Trying to create tensor with negative dimension -1: [-1]"),
    ("t.randperm(-1)", RuntimeError, "Trying to create tensor with negative dimension -1: [-1]"),
    # past int64, and too large to allocate
    ("t.ones(2**63)", TypeError, _unpack("ones", 1, "Overflow when unpacking long long")),
    ("t.zeros(2, 2**64)", TypeError, _unpack("zeros", 2, "Overflow when unpacking long long")),
    (
        "t.zeros(2**62)",
        RuntimeError,
        "Storage size calculation overflowed with sizes=[4611686018427387904]",
    ),
    ("t.empty(10**12)", RuntimeError, _alloc(4 * 10**12)),
    ("t.ones(10**12, dtype=t.float64)", RuntimeError, _alloc(8 * 10**12)),
    ("t.rand(2**40)", RuntimeError, _alloc(4 * 2**40)),
    ("t.randint(5, (10**12,))", RuntimeError, _alloc(8 * 10**12)),
    # sizes that are not ints
    (
        "t.zeros(2.5)",
        TypeError,
        "zeros(): argument 'size' (position 1) must be tuple of ints, not float",
    ),
    (
        "t.full((2.5,), 1.0)",
        TypeError,
        "full(): argument 'size' (position 1) must be tuple of ints, but found element of type float at pos 0",
    ),
    ("t.ones(3, nan)", TypeError, _unpack("ones", 2, "type must be tuple of ints,but got float")),
    (
        "t.full(3, 1.0)",
        TypeError,
        "full(): argument 'size' (position 1) must be tuple of ints, not int",
    ),
    (
        "t.zeros(None)",
        TypeError,
        "zeros(): argument 'size' (position 1) must be tuple of ints, not NoneType",
    ),
    (
        "t.ones(2).new_zeros(2.5)",
        TypeError,
        "new_zeros(): argument 'size' (position 1) must be tuple of ints, not float",
    ),
    ("t.randperm(2.5)", TypeError, "randperm(): argument 'n' (position 1) must be int, not float"),
    (
        "t.randint(2.5, 5, (3,))",
        TypeError,
        "randint() received an invalid combination of arguments - got (float, int, tuple), but expected one of:",
    ),
    (
        "t.randint(0, 300, (3,), dtype=t.uint8)",
        RuntimeError,
        "to - 1 is out of bounds for unsigned char",
    ),
]

RANGES = [
    ("t.eye(-2)", RuntimeError, "n must be greater or equal to 0, got -2"),
    ("t.eye(3, -1)", RuntimeError, "m must be greater or equal to 0, got -1"),
    ("t.eye(2.5)", TypeError, "eye(): argument 'n' (position 1) must be int, not float"),
    (
        "t.eye(2, 2.5)",
        TypeError,
        "eye() received an invalid combination of arguments - got (int, float), but expected one of:",
    ),
    ("t.eye(10**7)", RuntimeError, _alloc(4 * 10**14)),
    ("t.arange(0, nan)", RuntimeError, "unsupported range: 0 -> nan"),
    ("t.arange(inf, 10**13)", RuntimeError, "unsupported range: inf -> 1e+13"),
    ("t.arange(0, 5, nan)", RuntimeError, "step must be nonzero"),
    ("t.arange(0, -5)", RuntimeError, "upper bound and lower bound inconsistent with step sign"),
    ("t.arange(0, 5, 1e-20)", RuntimeError, "invalid size, possible overflow?"),
    (
        "t.arange(0, 2**63)",
        RuntimeError,
        "value cannot be converted to type int64_t without overflow",
    ),
    ("t.arange(10**13)", RuntimeError, _alloc(8 * 10**13)),
    ("t.arange(5, dtype=t.bool)", NotImplementedError, "\"arange_cpu\" not implemented for 'Bool'"),
    ("t.linspace(0, 1, -1)", RuntimeError, "number of steps must be non-negative"),
    (
        "t.linspace(0, 1, 2.5)",
        TypeError,
        "linspace() received an invalid combination of arguments - got (int, int, float), but expected one of:",
    ),
    ("t.linspace(0, 1, 2**63)", ValueError, "Overflow when unpacking long long"),
    (
        "t.linspace(1e308, 0, 3)",
        RuntimeError,
        "value cannot be converted to type float without overflow",
    ),
]

SCALARS = [
    # Python numbers that do not fit the tensor's dtype
    (
        "t.full((2,), 300, dtype=t.uint8)",
        RuntimeError,
        "value cannot be converted to type uint8_t without overflow",
    ),
    (
        "t.zeros(2, dtype=t.long).fill_(nan)",
        RuntimeError,
        "value cannot be converted to type int64_t without overflow",
    ),
    (
        "t.zeros(2).fill_(1e40)",
        RuntimeError,
        "value cannot be converted to type float without overflow",
    ),
    (
        "t.zeros(2, dtype=t.int32).masked_fill(t.ones(2, dtype=t.bool), inf)",
        RuntimeError,
        "value cannot be converted to type int without overflow",
    ),
    (
        "t.zeros(2, dtype=t.int8).index_fill(0, t.tensor([0]), 300)",
        RuntimeError,
        "value cannot be converted to type int8_t without overflow",
    ),
    (
        "t.zeros(2, dtype=t.int8).clamp(min=300)",
        RuntimeError,
        "value cannot be converted to type int8_t without overflow",
    ),
    (
        "t.tensor([300], dtype=t.uint8)",
        RuntimeError,
        "value cannot be converted to type uint8 without overflow",
    ),
    (
        "t.tensor([nan], dtype=t.int64)",
        RuntimeError,
        "value cannot be converted to type int64 without overflow",
    ),
    ("t.tensor([2**63])", ValueError, "Overflow when unpacking long long"),
    ("t.tensor([None])", RuntimeError, "Could not infer dtype of NoneType"),
    ("t.zeros(2).fill_(2**64)", OverflowError, "int too big to convert"),
    (
        "t.zeros(2, dtype=t.bool).add(2**63)",
        RuntimeError,
        "Promotion for uint16, uint32, uint64 types is not supported, attempted to promote Bool and UInt64",
    ),
    (
        "t.full((2,), None)",
        TypeError,
        "full(): argument 'fill_value' (position 2) must be Number, not NoneType",
    ),
]


@pytest.mark.parametrize("expr, error, first_line", SIZES + RANGES + SCALARS)
def test_bad_input_raises_torchs_error(expr, error, first_line):
    _raises(expr, error, first_line)


def _set(x, key, value):
    x[key] = value
    return x


@pytest.mark.parametrize("key", [1, slice(0, 2), t.tensor([0, 1])])
def test_setitem_checks_the_number_like_pytorch(key):
    with pytest.raises(RuntimeError, match="^value cannot be converted to type int64_t"):
        _set(t.zeros(3, dtype=t.long), key, math.nan)
    with pytest.raises(ValueError, match="^Overflow when unpacking long long$"):
        _set(t.zeros(3), key, 2**63)
    with pytest.raises(TypeError, match="^can't assign a str to a torch.FloatTensor$"):
        _set(t.zeros(3), key, "a")
    # half types take the number as a double: inf, not an error
    assert np.isinf(_set(t.zeros(3, dtype=t.float16), key, 1e40)[1].item())


def test_numbers_wrap_into_uint8_as_in_pytorch():
    assert t.full((2,), -1, dtype=t.uint8).tolist() == [255, 255]
    assert t.tensor([-1], dtype=t.uint8).tolist() == [255]
    assert t.zeros(2, dtype=t.uint8).fill_(-2).tolist() == [254, 254]
    assert (t.ones(2, dtype=t.uint8) + 2**63).tolist() == [1, 1]


def test_masked_fill_keeps_the_tensor_dtype():
    mask = t.tensor([True, False, True])
    out = t.ones(3, dtype=t.bool).masked_fill(mask, 0)
    assert out.dtype == t.bool and out.tolist() == [False, True, False]
    out = t.zeros(3, dtype=t.long).masked_fill(mask, 1.5)
    assert out.dtype == t.long and out.tolist() == [1, 0, 1]
    out = t.zeros(3, dtype=t.long).masked_fill(mask, t.tensor(2.5))
    assert out.dtype == t.long and out.tolist() == [2, 0, 2]


def test_linspace_and_logspace_keep_nan_and_inf_as_pytorch():
    assert all(math.isnan(v) for v in t.linspace(math.nan, 1, 3).tolist())
    assert [str(v) for v in t.linspace(math.inf, 1, 3).tolist()] == ["nan", "inf", "nan"]
    assert t.linspace(0, math.nan, 1).tolist() == [0.0]
    assert t.logspace(1e308, -1e308, 1).tolist() == [math.inf]


def test_integer_ranges_count_as_pytorch():
    assert t.arange(0, 1, 0.25, dtype=t.int32).tolist() == [0, 0, 0, 0]
    assert t.arange(0, 300, dtype=t.uint8)[-1].item() == 299 % 256
    assert t.linspace(-2, 10, 4, dtype=t.int64).tolist() == [-2, 2, 6, 10]
    assert t.eye(3, 0).shape == (3, 0) and t.eye(t.tensor(2)).tolist() == [[1, 0], [0, 1]]
