"""trapezoid, cov, corrcoef, histc, histogram, unique_consecutive, windows, range, vander,
renorm, put and i0 against torch."""

from __future__ import annotations

import numpy as np
import pytest

from .oracle import exprs, same, same_grads

RNG = np.random.default_rng(0)
ENV = {
    "x": RNG.standard_normal((3, 5)),
    "b": RNG.standard_normal((2, 3, 4)),
    "v": RNG.standard_normal(5),
    "s": np.sort(RNG.standard_normal(5)),
    "w": RNG.random(5) + 0.5,
    "f": np.array([1, 2, 1, 3, 1]),
    "h": np.array([1.0, 2.0, 1.0, 4.0, -1.0, 3.0, 3.0]),
    "u": np.array([1, 1, 2, 2, 3, 1, 1]),
    "r": np.array([[1, 1], [1, 1], [2, 3], [2, 3]]),
    "i": np.array([0, 4, -1]),
    "k": np.array([9.0, 8.0, 7.0]),
}

GRADS = """t.trapezoid(x) | t.trapezoid(x, dim=0) | t.trapezoid(x, dx=0.5) | t.trapezoid(x, s)
t.trapezoid(b, b, dim=1) | t.trapz(x) | t.trapz(x, s) | t.trapz(x, dx=2.0, dim=0)
t.cumulative_trapezoid(x) | t.cumulative_trapezoid(x, s) | t.cumulative_trapezoid(x, dx=2, dim=0)
t.trapezoid(x[:, :1]) | t.cov(x) | t.cov(v) | t.cov(x, correction=0)
t.cov(x, fweights=t.tensor(f)) | t.cov(x, aweights=w) | t.cov(x, fweights=t.tensor(f), aweights=w)
t.corrcoef(x) | t.corrcoef(v) | x.cov()
t.renorm(x, 2, 0, 1.0) | t.renorm(x, 1, 1, 0.5) | t.renorm(b, 3, 2, 1.0) | x.renorm(2, -1, 100.0)
t.put(x, t.tensor(i), k) | x.put(t.tensor(i), k, accumulate=True) | t.put(x, t.tensor([1, 1]), k[:2], True)
t.i0(v) | t.special.i1(v) | t.special.i0(x) | v.i0()"""

CHECKS = """t.histc(t.tensor(h)) | t.histc(t.tensor(h), 4, 0, 3) | t.histc(t.tensor([1.0, 1.0]), 3)
t.histc(t.tensor(f)) | t.histogram(t.tensor(h), 4) | t.histogram(t.tensor(h), 4, range=(0.0, 3.0))
t.histogram(t.tensor(h), t.tensor([0.0, 1.5, 3.0])) | t.histogram(t.tensor(h), t.tensor([0.0, 1.5]).double()) | t.histogram(t.tensor(h), 3, density=True)
t.histogram(t.tensor(h), 3, weight=t.tensor(h).abs()) | t.unique_consecutive(t.tensor(u))
t.unique_consecutive(t.tensor(u), return_inverse=True, return_counts=True)
t.unique_consecutive(t.tensor(r), dim=0, return_counts=True) | t.unique_consecutive(t.tensor(r), return_inverse=True)
t.hann_window(5) | t.hann_window(6, False) | t.hamming_window(7) | t.hamming_window(4, False, 0.5, 0.3)
t.blackman_window(8) | t.blackman_window(5, False, dtype=t.float64) | t.bartlett_window(7)
t.bartlett_window(6, False) | t.kaiser_window(6) | t.kaiser_window(7, False, 5.0, dtype=t.float64)
t.hann_window(0) | t.hann_window(1) | t.vander(x) | t.vander(t.tensor(f))
t.renorm(v, 2, 0, 1.0) | t.put(x, t.tensor([15]), k[:1]) | t.put(x, t.tensor([1, 2]), k)
t.i0(t.tensor(f)) | t.trapezoid(x[:, :0]) | t.cov(b) | t.i0(t.tensor([0.0, 30.0, -700.0])) | t.special.i1(t.tensor([0.0, 30.0, -700.0]))"""


@pytest.mark.parametrize("expr", exprs(GRADS))
def test_statistic_gradients_match_torch(torch, expr):
    same_grads(torch, expr, **ENV)


@pytest.mark.parametrize("expr", exprs(CHECKS))
def test_statistic_checks_match_torch(torch, expr):
    same(torch, expr, **ENV)


@pytest.mark.parametrize("expr", ["t.vander(v)", "t.vander(v, 3, True)", "t.vander(v, 1)"])
def test_vander_records_torchs_graph(torch, expr):
    # torch's own vander cannot be differentiated (its cumprod input is overwritten in
    # place); dyngrad records the same graph and fails the same way
    same(torch, expr, requires_grad=True, **ENV)


def test_range_includes_the_end_and_warns(lib):
    with pytest.warns(UserWarning, match="^torch.range is deprecated"):
        r = lib.range(1, 4)
    assert r.tolist() == [1.0, 2.0, 3.0, 4.0] and r.dtype == lib.float32
    with pytest.warns(UserWarning):
        assert lib.range(0, 1, 0.25).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]


@pytest.mark.parametrize("fn", ["trapezoid", "cumulative_trapezoid"])
def test_trapezoid_spacing_as_pytorch_takes_it(lib, fn):
    # a shorter x is padded with leading dims; a 1-D x must have one value per sample
    y = lib.arange(24, dtype=lib.float64).reshape(2, 3, 4).sin().requires_grad_()
    x = lib.arange(12, dtype=lib.float64).reshape(3, 4).cos().cumsum(-1).requires_grad_()
    out = getattr(lib, fn)(y, x)
    out.sum().backward()
    assert out.grad_fn.next_functions[0][0].next_functions[0][0].name() == "MulBackward0"
    assert x.grad.shape == (3, 4)
    with pytest.raises(RuntimeError, match=f"^{fn}: There must be one `x` value for each sample"):
        getattr(lib, fn)(y, lib.ones(4, dtype=lib.float64), dim=1)
