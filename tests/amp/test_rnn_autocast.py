"""Recurrent modules under CPU bfloat16 autocast, as PyTorch: an unpacked LSTM runs as
oneDNN's bfloat16 kernel (bfloat16 outputs and states), a packed one and GRU through cells
whose products autocast (float32 outputs), RNN's tanh cells in bfloat16; parameters' grads
stay float32."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

X = np.random.default_rng(0).standard_normal((5, 3, 4)).astype(np.float32)


def _run(lib, kind, packed):
    lib.manual_seed(1)
    module = getattr(lib.nn, kind)(4, 6)
    x = lib.from_numpy(X)
    if packed:
        x = lib.nn.utils.rnn.pack_padded_sequence(x, [5, 3, 2])
    with lib.autocast("cpu", dtype=lib.bfloat16):
        out, state = module(x)
    data = out.data if packed else out
    h = state[0] if kind == "LSTM" else state
    data.float().sum().backward()
    return (
        str(data.dtype),
        str(h.dtype),
        str(module.weight_hh_l0.grad.dtype),
        data.float().detach().numpy(),
    )


@pytest.mark.parametrize("packed", [False, True])
@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
def test_dtypes_and_values_match_torch(kind, packed, torch):
    ours, theirs = _run(dyngrad, kind, packed), _run(torch, kind, packed)
    assert ours[:3] == theirs[:3]
    np.testing.assert_allclose(ours[3], theirs[3], atol=0.03)  # bfloat16 arithmetic
