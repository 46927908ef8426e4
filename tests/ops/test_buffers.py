"""torch.frombuffer (shared memory, count/offset, errors, the read-only warning) and
torch.empty_permuted (strides, errors) against torch."""

from __future__ import annotations

import array
import warnings

import numpy as np
import pytest

from .oracle import exprs, same

BYTES = b"\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00"


def test_frombuffer_shares_memory_with_a_writable_buffer(lib):
    buffer = bytearray(BYTES)
    t = lib.frombuffer(buffer, dtype=lib.int32)
    assert t.tolist() == [1, 2, 3] and t.dtype == lib.int32
    buffer[0] = 9
    assert t.tolist() == [9, 2, 3]
    t[1] = 7
    assert buffer[4] == 7


@pytest.mark.parametrize(
    "kwargs,expected",
    [
        (dict(dtype="int32", count=2, offset=4), [2, 3]),
        (dict(dtype="int32", count=-2), [1, 2, 3]),
        (dict(dtype="int16", count=3), [1, 0, 2]),
        (dict(dtype="uint8", offset=8), [3, 0, 0, 0]),
        (dict(dtype="int32", offset=4), [2, 3]),
    ],
)
def test_frombuffer_count_and_offset(lib, kwargs, expected):
    kwargs = dict(kwargs, dtype=getattr(lib, kwargs["dtype"]))
    assert lib.frombuffer(bytearray(BYTES), **kwargs).tolist() == expected


def test_frombuffer_float_requires_grad(lib):
    t = lib.frombuffer(
        bytearray(np.arange(3, dtype=np.float32).tobytes()), dtype=lib.float32, requires_grad=True
    )
    assert t.requires_grad and t.is_leaf and t.tolist() == [0.0, 1.0, 2.0]
    (t * 2).sum().backward()
    assert t.grad.tolist() == [2.0, 2.0, 2.0]


def test_frombuffer_reads_any_buffer(lib):
    t = lib.frombuffer(array.array("i", [4, 5, 6]), dtype=lib.int32)
    assert t.tolist() == [4, 5, 6]


def test_frombuffer_warns_for_a_read_only_buffer(lib):
    lib.set_warn_always(True)
    try:
        with pytest.warns(UserWarning, match="^The given buffer is not writable"):
            t = lib.frombuffer(b"\x01\x02\x03\x04", dtype=lib.int16)
    finally:
        lib.set_warn_always(False)
    assert t.tolist() == [513, 1027]


CHECKS = """t.frombuffer(buf, dtype=t.int32, count=4) | t.frombuffer(buf, dtype=t.int32, offset=13)
t.frombuffer(buf, dtype=t.int32, offset=12) | t.frombuffer(buf, dtype=t.int32, count=0)
t.frombuffer(bytearray(3), dtype=t.int16) | t.frombuffer(bytearray(), dtype=t.int16)
t.frombuffer(buf, dtype=t.int32, offset=-1) | t.frombuffer([1, 2], dtype=t.int32)
t.frombuffer(buf, dtype=t.int32, offset=1, count=2) | t.frombuffer(buf, dtype=t.int32, requires_grad=True)
t.empty_permuted((2, 3), (0,)) | t.empty_permuted((2, 3), (0, 0)) | t.empty_permuted((2, 3), (0, 2))
t.empty_permuted((2, -3), (1, 0)) | t.empty_permuted((2, 3), (1, 0), dtype=t.int64).zero_()
t.empty_permuted((), ()).zero_() | t.empty_permuted((2, 3), (-1, 0))"""


@pytest.mark.parametrize("expr", exprs(CHECKS))
def test_buffer_checks_match_torch(torch, expr):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(torch, expr, buf=bytearray(BYTES))


@pytest.mark.parametrize(
    "size,layout", [((2, 3, 4), (0, 2, 1)), ((2, 3, 4, 5), (0, 2, 3, 1)), ([2, 3], [1, 0])]
)
def test_empty_permuted_lays_out_memory(lib, size, layout):
    t = lib.empty_permuted(size, layout, dtype=lib.float64, requires_grad=True)
    assert tuple(t.shape) == tuple(size) and t.dtype == lib.float64 and t.requires_grad
    strides = [0] * len(size)
    step = 1
    for d in reversed(layout):
        strides[d] = step
        step *= size[d]
    assert t.stride() == tuple(strides)
    assert not t.is_contiguous()
