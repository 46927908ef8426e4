"""torch.nn.utils.fusion (conv/linear + eval-mode batch norm in one layer), and the other small
torch.nn.utils additions: skip_init, clip_grads_with_norm_, the conv weight memory formats."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad
from dyngrad.nn.utils import fusion

from .parity import twins


def _x(shape, seed=1):
    return np.random.default_rng(seed).standard_normal(shape)


def _randomise_stats(bn, seed=2):
    rng = np.random.default_rng(seed)
    n = bn.num_features
    bn.running_mean.copy_(dyngrad.from_numpy(rng.standard_normal(n)))
    bn.running_var.copy_(dyngrad.from_numpy(rng.uniform(0.5, 2.0, n)))
    if bn.affine:
        with dyngrad.no_grad():
            bn.weight.copy_(dyngrad.from_numpy(rng.standard_normal(n)))
            bn.bias.copy_(dyngrad.from_numpy(rng.standard_normal(n)))


def _message(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the type is compared too
        return type(exc).__name__, str(exc).split("\n")[0]
    return None


_CONVS = [
    # (make the layer pair, input shape, transpose)
    (lambda nn: nn.Sequential(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3)), (2, 2, 5, 5), False),
    (lambda nn: nn.Sequential(nn.Conv1d(2, 3, 2, bias=False), nn.BatchNorm1d(3)), (2, 2, 6), False),
    (
        lambda nn: nn.Sequential(nn.Conv2d(2, 4, 1), nn.BatchNorm2d(4, affine=False)),
        (1, 2, 3, 3),
        False,
    ),
    (lambda nn: nn.Sequential(nn.ConvTranspose2d(2, 3, 2), nn.BatchNorm2d(3)), (1, 2, 3, 3), True),
]


@pytest.mark.parametrize("make, shape, transpose", _CONVS)
def test_fused_conv_equals_conv_then_batch_norm_and_torchs_fusion(torch, make, shape, transpose):
    theirs, ours = twins(torch, make)
    _randomise_stats(ours[1])
    theirs.load_state_dict(
        {k: torch.from_numpy(v.numpy().copy()) for k, v in ours.state_dict().items()}
    )
    ours.eval(), theirs.eval()
    fused = fusion.fuse_conv_bn_eval(ours[0], ours[1], transpose=transpose)
    their_fused = torch.nn.utils.fusion.fuse_conv_bn_eval(theirs[0], theirs[1], transpose=transpose)
    x = dyngrad.from_numpy(_x(shape))
    np.testing.assert_allclose(
        fused(x).detach().numpy(), ours(x).detach().numpy(), rtol=1e-12, atol=1e-12
    )
    assert fused is not ours[0] and type(fused) is type(ours[0])
    assert isinstance(fused.bias, dyngrad.nn.Parameter)  # created when the conv had none
    for name in ("weight", "bias"):
        ref = getattr(their_fused, name)
        got = getattr(fused, name)
        assert got.requires_grad == ref.requires_grad
        np.testing.assert_allclose(
            got.detach().numpy(), ref.detach().numpy(), rtol=1e-13, atol=1e-14
        )


@pytest.mark.parametrize("features", [3, 1])
def test_fused_linear_equals_linear_then_batch_norm_and_torchs_fusion(torch, features):
    def make(nn):
        return nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(features))

    theirs, ours = twins(torch, make)
    _randomise_stats(ours[1])
    theirs.load_state_dict(
        {k: torch.from_numpy(v.numpy().copy()) for k, v in ours.state_dict().items()}
    )
    ours.eval(), theirs.eval()
    fused = fusion.fuse_linear_bn_eval(ours[0], ours[1])
    their_fused = torch.nn.utils.fusion.fuse_linear_bn_eval(theirs[0], theirs[1])
    x = dyngrad.from_numpy(_x((5, 4)))
    # a one-feature batch norm sees the outputs as (N, 1, L): one shared mean and variance
    expected = ours[1](ours[0](x).unsqueeze(1)).squeeze(1) if features == 1 else ours(x)
    got = fused(x).detach().numpy()
    np.testing.assert_allclose(got, expected.detach().numpy(), rtol=1e-12, atol=1e-12)
    for name in ("weight", "bias"):
        np.testing.assert_allclose(
            getattr(fused, name).detach().numpy(),
            getattr(their_fused, name).detach().numpy(),
            rtol=1e-13,
            atol=1e-14,
        )


def test_fuse_weights_keep_the_weights_dtype_and_requires_grad():
    conv_w = dyngrad.randn(3, 2, 1, 1)
    rm, rv = dyngrad.zeros(3, dtype=dyngrad.float64), dyngrad.ones(3, dtype=dyngrad.float64)
    w, b = fusion.fuse_conv_bn_weights(conv_w, None, rm, rv, 1e-5, None, None)
    assert isinstance(w, dyngrad.nn.Parameter) and w.dtype == dyngrad.float32
    assert b.dtype == dyngrad.float32 and not w.requires_grad and not b.requires_grad
    lw = dyngrad.nn.Parameter(dyngrad.randn(3, 4))
    w, b = fusion.fuse_linear_bn_weights(
        lw, None, rm.float(), rv.float(), 1e-5, rm.float() + 2, rm.float()
    )
    assert w.requires_grad and w.grad_fn is None and not b.requires_grad
    np.testing.assert_allclose(
        w.detach().numpy(), lw.detach().numpy() * 2 / np.sqrt(1 + 1e-5), rtol=1e-6
    )


def test_fusion_misuse_raises_torchs_errors(torch):
    def misuses(lib):
        nn, f = lib.nn, lib.nn.utils.fusion
        return [
            lambda: f.fuse_conv_bn_eval(nn.Conv2d(2, 3, 1), nn.BatchNorm2d(3).eval()),
            lambda: f.fuse_linear_bn_eval(nn.Linear(2, 3).eval(), nn.BatchNorm1d(3)),
            lambda: f.fuse_linear_bn_eval(nn.Linear(2, 3).eval(), nn.BatchNorm1d(2).eval()),
            lambda: f.fuse_conv_bn_eval(
                nn.Conv2d(2, 3, 1).eval(), nn.BatchNorm2d(3, track_running_stats=False).eval()
            ),
        ]

    for ours, theirs in zip(misuses(dyngrad), misuses(torch)):
        expected = _message(theirs)
        assert expected is not None
        assert _message(ours) == expected


# ---- skip_init, clip_grads_with_norm_, memory formats --------------------------------------


def test_skip_init_builds_the_module_without_moving_the_generator(torch):
    for lib in (torch, dyngrad):
        lib.manual_seed(0)
        m = lib.nn.utils.skip_init(lib.nn.Linear, 5, 3, bias=False)
        assert type(m) is lib.nn.Linear and tuple(m.weight.shape) == (3, 5) and m.bias is None
        assert str(m.weight.device) == "cpu"
    np.testing.assert_array_equal(dyngrad.randn(4).numpy(), torch.randn(4).numpy())


def test_skip_init_misuse_raises_torchs_errors(torch):
    def misuses(lib):
        return [
            lambda: lib.nn.utils.skip_init(int),
            lambda: lib.nn.utils.skip_init(lib.nn.ReLU),
        ]

    for ours, theirs in zip(misuses(dyngrad), misuses(torch)):
        expected = _message(theirs)
        assert expected is not None
        assert _message(ours) == expected


@pytest.mark.parametrize(
    "dtype, max_norm", [("float32", 1.1), ("float32", 100.0), ("float64", 0.37)]
)
def test_clip_grads_with_norm_matches_torch_bit_for_bit(torch, dtype, max_norm):
    # both scale by the same total norm (torch's), so the coefficient alone is compared: PyTorch
    # computes it in the norm's dtype, max_norm * 1 / (norm + 1e-6), clamped at 1 (for 1.1
    # here, a coefficient computed in float64 and then rounded differs in the last bit)
    grads = [_x((3, 4), 1).astype(dtype), _x(5, 2).astype(dtype)]
    total = torch.nn.utils.get_total_norm([torch.from_numpy(g) for g in grads])
    results = []
    for lib in (torch, dyngrad):
        params = [lib.zeros(g.shape, dtype=getattr(lib, dtype), requires_grad=True) for g in grads]
        params.append(lib.zeros(2, requires_grad=True))  # no grad: skipped
        for p, g in zip(params, grads):
            p.grad = lib.from_numpy(g.copy())
        norm = lib.from_numpy(total.numpy().copy())
        assert lib.nn.utils.clip_grads_with_norm_(params, max_norm, norm) is None
        assert params[2].grad is None
        results.append([p.grad.numpy() for p in params[:2]])
    for ours, theirs in zip(*results):
        np.testing.assert_array_equal(ours, theirs)
    clipped = np.sqrt(sum((g.astype(float) ** 2).sum() for g in results[1]))
    assert clipped == pytest.approx(min(max_norm, float(total)), rel=1e-5)


def test_convert_conv_weight_memory_format_matches_torch(torch):
    def make(nn):
        return nn.Sequential(
            nn.Conv2d(2, 3, 3), nn.Sequential(nn.ConvTranspose2d(3, 2, 2)), nn.Conv3d(2, 2, 2)
        )

    theirs, ours = twins(torch, make)
    before = [p.detach().numpy().copy() for p in ours.parameters()]
    dyngrad.nn.utils.convert_conv2d_weight_memory_format(ours, dyngrad.channels_last)
    torch.nn.utils.convert_conv2d_weight_memory_format(theirs, torch.channels_last)
    dyngrad.nn.utils.convert_conv3d_weight_memory_format(ours, dyngrad.channels_last_3d)
    torch.nn.utils.convert_conv3d_weight_memory_format(theirs, torch.channels_last_3d)
    for (name, p), q, old in zip(ours.named_parameters(), theirs.parameters(), before):
        assert p.stride() == q.stride(), name
        assert isinstance(p, dyngrad.nn.Parameter)
        np.testing.assert_array_equal(p.detach().numpy(), old)
    assert ours[0].weight.is_contiguous(memory_format=dyngrad.channels_last)
