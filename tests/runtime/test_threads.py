"""Intra-op threads: large elementwise kernels split across threads give the same bits."""

from __future__ import annotations

import multiprocessing

import numpy as np
import pytest

import dyngrad
from dyngrad.runtime import threads


@pytest.fixture
def two_threads():
    before = dyngrad.get_num_threads()
    dyngrad.set_num_threads(2)
    yield
    dyngrad.set_num_threads(before)


def test_split_kernel_gives_the_single_call_bits(two_threads):
    x = np.random.default_rng(0).standard_normal((300, 700)).astype(np.float32)
    calls = []

    def kernel(a):
        calls.append(a.size)
        return np.exp(-a * a) * a

    split = threads.elementwise(kernel, x)
    assert len(calls) == 2 and sum(calls) == x.size
    np.testing.assert_array_equal(split, np.exp(-x * x) * x)
    assert split.shape == x.shape and split.dtype == x.dtype


def test_small_strided_or_mismatched_arrays_take_one_call(two_threads):
    calls = []

    def kernel(*arrays):
        calls.append(1)
        return arrays[0] * 2

    big = np.ones((512, 512), np.float32)
    for arrays in ((np.ones(100, np.float32),), (big[:, ::2],), (big, np.ones((512, 1)))):
        threads.elementwise(kernel, *arrays)
    assert len(calls) == 3


def test_gelu_is_the_same_with_one_thread_and_two(two_threads):
    x = dyngrad.randn(256, 600, requires_grad=True)
    y = dyngrad.nn.functional.gelu(x)
    y.backward(dyngrad.ones_like(y))
    dyngrad.set_num_threads(1)
    x1 = x.detach().clone().requires_grad_(True)
    y1 = dyngrad.nn.functional.gelu(x1)
    y1.backward(dyngrad.ones_like(y1))
    assert np.array_equal(y.detach().numpy(), y1.detach().numpy())
    assert np.array_equal(x.grad.numpy(), x1.grad.numpy())


def test_set_num_threads_checks_its_argument_as_torch():
    with pytest.raises(RuntimeError, match="set_num_threads expects a positive integer"):
        dyngrad.set_num_threads(0)
    with pytest.raises(RuntimeError, match="set_num_threads expects an int, but got float"):
        dyngrad.set_num_threads(1.5)


def _gelu_in_child(queue):
    x = dyngrad.ones(512, 512)
    queue.put(float(dyngrad.nn.functional.gelu(x).sum()))


def test_a_forked_child_rebuilds_the_pool(two_threads):
    dyngrad.nn.functional.gelu(dyngrad.ones(512, 512))  # the parent's pool exists
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_gelu_in_child, args=(queue,))
    child.start()
    child.join(30)
    assert child.exitcode == 0
    assert queue.get(timeout=5) == pytest.approx(512 * 512 * 0.8413447, rel=1e-5)


def test_optimizer_steps_are_the_same_with_one_thread_and_two(two_threads):
    rng = np.random.default_rng(1)
    w0 = rng.standard_normal((400, 400)).astype(np.float32)
    grads = [rng.standard_normal((400, 400)).astype(np.float32) for _ in range(3)]
    results = []
    for n in (2, 1):
        dyngrad.set_num_threads(n)
        for make in (
            lambda ps: dyngrad.optim.SGD(ps, lr=0.1, momentum=0.9),
            lambda ps: dyngrad.optim.AdamW(ps, lr=0.01),
            lambda ps: dyngrad.optim.Adam(ps, lr=0.01, amsgrad=True),
        ):
            w = dyngrad.nn.Parameter(dyngrad.from_numpy(w0.copy()))
            opt = make([w])
            for g in grads:
                w.grad = dyngrad.from_numpy(g.copy())
                opt.step()
            results.append(w.detach().numpy().copy())
    for two, one in zip(results[:3], results[3:]):
        np.testing.assert_array_equal(two, one)


def test_set_num_threads_bounds_numpys_blas_as_torchs_bounds_its_own():
    # See Note [BLAS threads]: without it one BLAS product used every core whatever was asked
    from dyngrad.runtime import blas_threads

    if not blas_threads.blas_threads_settable() or blas_threads.get_blas_threads() is None:
        pytest.skip("NumPy's BLAS here has no thread count dyngrad can set")
    before = dyngrad.get_num_threads()
    try:
        dyngrad.set_num_threads(1)
        assert blas_threads.get_blas_threads() == 1
        dyngrad.set_num_threads(2)
        assert blas_threads.get_blas_threads() == 2
    finally:
        dyngrad.set_num_threads(before)


def test_numpys_own_openblas_is_reached_without_threadpoolctl(monkeypatch):
    from dyngrad.runtime import blas_threads

    monkeypatch.setitem(__import__("sys").modules, "threadpoolctl", None)  # as if not installed
    setter, getter = blas_threads._find()
    if setter is None or getter is None:
        pytest.skip("NumPy here does not bundle OpenBLAS")
    before = getter()
    try:
        setter(1)
        assert getter() == 1
    finally:
        setter(before)
