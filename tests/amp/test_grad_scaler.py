"""GradScaler against torch: scaling, unscale_, skipped steps, growth and backoff, state_dict,
the errors and warnings; several optimizers and gradient accumulation."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngrad


def _model(lib, seed=0):
    rng = np.random.default_rng(seed)
    m = lib.nn.Linear(3, 2)
    with lib.no_grad():
        m.weight.copy_(lib.from_numpy(rng.standard_normal((2, 3)).astype(np.float32)))
        m.bias.copy_(lib.from_numpy(rng.standard_normal(2).astype(np.float32)))
    return m


def _batch(lib, i):
    rng = np.random.default_rng(100 + i)
    return lib.from_numpy(rng.standard_normal((4, 3)).astype(np.float32))


def _train(lib, steps, poison=(), **scaler_kwargs):
    """A bf16 autocast loop; `poison` steps get an inf in the batch: their step is skipped."""
    m = _model(lib)
    opt = lib.optim.SGD(m.parameters(), lr=0.1)
    scaler = lib.amp.GradScaler("cpu", **scaler_kwargs)
    scales, trackers = [], []
    for i in range(steps):
        x = _batch(lib, i)
        if i in poison:
            x[0, 0] = float("inf")
        with lib.autocast("cpu", dtype=lib.bfloat16):
            loss = m(x).float().pow(2).mean()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
        scales.append(scaler.get_scale())
        trackers.append(scaler.state_dict()["_growth_tracker"])
    return m, scales, trackers


def test_scale_growth_and_backoff_match_torch(torch):
    kwargs = {"init_scale": 8.0, "growth_interval": 2, "growth_factor": 4.0, "backoff_factor": 0.25}
    m_d, scales_d, trackers_d = _train(dyngrad, 7, poison=(2, 5), **kwargs)
    m_t, scales_t, trackers_t = _train(torch, 7, poison=(2, 5), **kwargs)
    assert scales_d == scales_t == [8.0, 32.0, 8.0, 8.0, 32.0, 8.0, 8.0]
    assert trackers_d == trackers_t
    np.testing.assert_allclose(
        m_d.weight.detach().numpy(), m_t.weight.detach().numpy(), rtol=2e-2, atol=2e-2
    )


def test_inf_gradient_skips_the_step(lib):
    m = _model(lib)
    opt = lib.optim.SGD(m.parameters(), lr=0.1)
    scaler = lib.amp.GradScaler("cpu", init_scale=2.0**16)
    before = m.weight.detach().clone()
    scaler.scale(m(_batch(lib, 0)).sum() * float("inf")).backward()
    assert scaler.step(opt) is None
    assert lib.equal(m.weight.detach(), before)
    scaler.update()
    assert scaler.get_scale() == 2.0**15


def test_unscale_divides_gradients_in_their_dtype(lib):
    m = _model(lib)
    opt = lib.optim.SGD(m.parameters(), lr=0.1)
    scaler = lib.amp.GradScaler("cpu", init_scale=1024.0)
    scaled = scaler.scale(m(_batch(lib, 0)).sum())
    assert scaled.dtype == lib.float32
    scaled.backward()
    g_scaled = m.weight.grad.clone()
    scaler.unscale_(opt)
    np.testing.assert_allclose(m.weight.grad.numpy(), g_scaled.numpy() / 1024.0, rtol=1e-6)


def test_bfloat16_loss_is_scaled_in_float32(lib):
    scaler = lib.amp.GradScaler("cpu", init_scale=3.0)
    loss = lib.tensor(1.5, dtype=lib.bfloat16)
    assert scaler.scale(loss).dtype == lib.float32
    assert scaler.scale(lib.ones(2, dtype=lib.bfloat16)).dtype == lib.bfloat16
    assert [t.dtype for t in scaler.scale([loss, lib.ones(1)])] == [lib.float32, lib.float32]


def test_errors_match_torch(lib):
    m = _model(lib)
    opt = lib.optim.SGD(m.parameters(), lr=0.1)
    scaler = lib.amp.GradScaler("cpu")
    with pytest.raises(AssertionError, match="Attempted step but _scale is None.  This may"):
        scaler.step(opt)
    with pytest.raises(ValueError, match="outputs must be a Tensor or an iterable of Tensors"):
        scaler.scale(3.0)
    scaler.scale(m(_batch(lib, 0)).sum()).backward()
    scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match=r"unscale_\(\) has already been called on this"):
        scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
        scaler.step(opt, closure=lambda: None)
    scaler.step(opt)
    with pytest.raises(RuntimeError, match=r"step\(\) has already been called since the last"):
        scaler.step(opt)
    with pytest.raises(RuntimeError, match=r"unscale_\(\) is being called after step\(\)"):
        scaler.unscale_(opt)
    scaler.update()
    with pytest.raises(AssertionError, match="No inf checks were recorded prior to update."):
        scaler.update()
    with pytest.raises(AssertionError, match="The growth factor must be > 1.0."):
        lib.amp.GradScaler("cpu", growth_factor=1.0)
    with pytest.raises(AssertionError, match="The backoff factor must be < 1.0."):
        lib.amp.GradScaler("cpu", backoff_factor=1.0)


def test_fp16_gradients_cannot_be_unscaled(lib):
    p = lib.nn.Parameter(lib.ones(2, dtype=lib.float16))
    opt = lib.optim.SGD([p], lr=0.1)
    scaler = lib.amp.GradScaler("cpu")
    scaler.scale((p * 2).sum()).backward()
    with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients."):
        scaler.unscale_(opt)


def test_update_with_new_scale(lib):
    scaler = lib.amp.GradScaler("cpu")
    scaler.scale(lib.ones(1))
    scaler.update(128.0)
    assert scaler.get_scale() == 128.0
    scaler.update(lib.tensor(4.0))
    assert scaler.get_scale() == 4.0
    with pytest.raises(AssertionError, match="new_scale should be a float or a 1-element"):
        scaler.update(lib.ones(2))


def test_state_dict_round_trip(lib):
    scaler = lib.amp.GradScaler("cpu", init_scale=16.0, growth_interval=3)
    assert scaler.state_dict() == {
        "scale": 16.0,
        "growth_factor": 2.0,
        "backoff_factor": 0.5,
        "growth_interval": 3,
        "_growth_tracker": 0,
    }
    m = _model(lib)
    opt = lib.optim.SGD(m.parameters(), lr=0.1)
    scaler.scale(m(_batch(lib, 0)).sum()).backward()
    scaler.step(opt)
    scaler.update()
    state = scaler.state_dict()
    other = lib.amp.GradScaler("cpu")
    other.load_state_dict(state)
    assert other.state_dict() == state == {**state, "scale": 16.0, "_growth_tracker": 1}
    assert other.get_scale() == 16.0 and other.get_growth_interval() == 3
    disabled = lib.amp.GradScaler("cpu", enabled=False)
    assert disabled.state_dict() == {} and disabled.get_scale() == 1.0
    with pytest.raises(RuntimeError, match="The source state dict is empty"):
        other.load_state_dict({})


def test_cuda_scaler_without_cuda_passes_through(lib):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scaler = lib.amp.GradScaler("cuda")
        old = lib.cuda.amp.GradScaler()
        lib.cpu.amp.GradScaler()
    messages = [str(w.message) for w in caught]
    assert (
        "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling." in messages
    )
    assert any("`torch.cuda.amp.GradScaler(args...)` is deprecated" in m for m in messages)
    assert any("`torch.cpu.amp.GradScaler(args...)` is deprecated" in m for m in messages)
    assert not scaler.is_enabled() and not old.is_enabled()
    loss = lib.ones(1)
    assert scaler.scale(loss) is loss


def _two_optimizer_run(lib, accumulate):
    m1, m2 = _model(lib, 1), _model(lib, 2)
    o1 = lib.optim.SGD(m1.parameters(), lr=0.1)
    o2 = lib.optim.Adam(m2.parameters(), lr=0.01)
    scaler = lib.amp.GradScaler("cpu", init_scale=256.0)
    for i in range(3):
        for j in range(accumulate):
            with lib.autocast("cpu", dtype=lib.bfloat16):
                loss = (m1(_batch(lib, 10 * i + j)) + m2(_batch(lib, 10 * i + j))).float()
                loss = loss.pow(2).mean() / accumulate
            scaler.scale(loss).backward()
        scaler.unscale_(o1)
        lib.nn.utils.clip_grad_norm_(m1.parameters(), 1.0)
        scaler.step(o1)
        scaler.step(o2)
        scaler.update()
        o1.zero_grad()
        o2.zero_grad()
    return [p.detach().numpy().copy() for p in (*m1.parameters(), *m2.parameters())]


@pytest.mark.parametrize("accumulate", [1, 3])
def test_several_optimizers_and_accumulation_match_torch(torch, accumulate):
    got = _two_optimizer_run(dyngrad, accumulate)
    want = _two_optimizer_run(torch, accumulate)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=3e-2, atol=3e-2)


def test_scaled_grads_records_what_is_still_scaled():
    # dyngrad's addition for diagnostics: See Note [Scaled gradients]
    from dyngrad.amp.grad_scaler import live_scalers

    m = _model(dyngrad)
    opt = dyngrad.optim.SGD(m.parameters(), lr=0.1)
    scaler = dyngrad.amp.GradScaler("cpu")
    assert scaler in live_scalers()
    params = list(m.parameters())
    assert scaler.scaled_grads(params) == []
    scaler.scale(m(_batch(dyngrad, 0)).sum()).backward()
    assert len(scaler.scaled_grads(params)) == 2
    scaler.unscale_(opt)
    assert scaler.scaled_grads(params) == []
    scaler.step(opt)
    scaler.update()
    assert scaler.scaled_grads(params) == []
