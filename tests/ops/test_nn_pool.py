"""Tiled max pooling (kernel == stride) against torch: ties, signed zeros, unbatched input."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad


def _pool_both(torch, x, kernel):
    results = []
    for t in (torch, dyngrad):
        a = t.from_numpy(x.copy()).requires_grad_(True)
        values, index = t.nn.functional.max_pool2d(a, kernel, return_indices=True)
        cotangent = np.arange(values.numel(), dtype=x.dtype).reshape(tuple(values.shape)) + 1
        values.backward(t.from_numpy(cotangent))
        results.append((values.detach().numpy(), index.numpy(), a.grad.numpy()))
    return results


@pytest.mark.parametrize("shape, kernel", [((3, 5, 7), 2), ((2, 2, 6, 9), (3, 2))])
def test_tiled_max_pool_unbatched_and_uneven_match_torch(torch, shape, kernel):
    x = np.random.default_rng(0).integers(-2, 3, shape).astype(np.float32)
    theirs, ours = _pool_both(torch, x, kernel)
    for d, t in zip(ours, theirs):
        np.testing.assert_array_equal(d, t)


def test_tiled_max_pool_second_and_third_tap_tie_keeps_the_second(torch):
    # the maximum is a zero of either sign in taps 1 and 2: torch keeps tap 1, -0.0
    x = np.array([[[[-1.0, -0.0], [0.0, -2.0]], [[-1.0, 0.0], [-0.0, -2.0]]]], np.float32)
    theirs, ours = _pool_both(torch, x, 2)
    for d, t in zip(ours, theirs):
        np.testing.assert_array_equal(d, t)
        np.testing.assert_array_equal(np.signbit(d), np.signbit(t))
