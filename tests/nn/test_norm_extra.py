"""F.rms_norm / nn.RMSNorm and F.instance_norm / nn.InstanceNorm*d against torch."""

from __future__ import annotations

import numpy as np
import pytest

from ..ops.oracle import same, same_grads

R = np.random.default_rng(0)
X = R.standard_normal((2, 3, 4, 5))
W = R.standard_normal(5) + 1
C = R.standard_normal(3) + 1


@pytest.mark.parametrize(
    "expr",
    [
        "t.nn.functional.rms_norm(x, (5,))",
        "t.nn.functional.rms_norm(x, (4, 5), eps=1e-3)",
        "t.nn.functional.rms_norm(x, [5], w)",
        "t.nn.functional.rms_norm(x.float(), 5)",
        "t.nn.functional.rms_norm(x.half(), (5,))",
        "t.nn.functional.rms_norm(x, (4,))",
        "t.nn.functional.instance_norm(x)",
        "t.nn.functional.instance_norm(x, weight=c, bias=c)",
        "t.nn.functional.instance_norm(x[..., :1, :1])",
        "t.nn.functional.instance_norm(x[:, :, 0])",
    ],
)
def test_functional_norms_match_torch(torch, expr):
    same(torch, expr, requires_grad=True, x=X, w=W, c=C)


@pytest.mark.parametrize(
    "expr",
    [
        "t.nn.functional.rms_norm(x, (5,), w)",
        "t.nn.functional.rms_norm(x, (4, 5))",
        "t.nn.functional.instance_norm(x, weight=c, bias=c)",
    ],
)
def test_functional_norm_gradients_match_torch(torch, expr):
    same_grads(torch, expr, x=X, w=W, c=C)


@pytest.mark.filterwarnings("ignore::UserWarning")  # the num_features mismatch warning
@pytest.mark.parametrize(
    "expr",
    [
        "t.nn.InstanceNorm2d(3).double()(x)",
        "t.nn.InstanceNorm2d(3, affine=True).double()(x)",
        "t.nn.InstanceNorm1d(3).double()(x[:, :, 0])",
        "t.nn.InstanceNorm2d(3).double()(x[0])",
        "t.nn.InstanceNorm2d(3).double()(x[0, 0])",
        "t.nn.InstanceNorm2d(4, affine=True).double()(x)",
        "t.nn.InstanceNorm2d(5).double()(x)",
        "t.nn.RMSNorm(5).double()(x)",
        "t.nn.RMSNorm([4, 5], eps=1e-6).double()(x)",
        "t.nn.RMSNorm(5, elementwise_affine=False)(x)",
        "repr(t.nn.InstanceNorm3d(3, affine=True, track_running_stats=True))",
        "repr(t.nn.RMSNorm((2, 5)))",
        "sorted(t.nn.InstanceNorm2d(3, True, track_running_stats=True).state_dict())",
        "sorted(t.nn.RMSNorm(5).state_dict())",
    ],
)
def test_norm_modules_match_torch(torch, expr):
    same(torch, expr, requires_grad=True, x=X)


def test_instance_norm_running_stats_update_as_torch(torch):
    import dyngrad

    results = []
    for lib in (dyngrad, torch):
        m = lib.nn.InstanceNorm2d(3, track_running_stats=True)
        m(lib.tensor(X, dtype=lib.float32))
        m.eval()
        out = m(lib.tensor(X[:1], dtype=lib.float32))
        results.append([m.running_mean.numpy(), m.running_var.numpy(), out.detach().numpy()])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


def test_gumbel_softmax_samples_the_softmax_and_passes_gradients_straight_through():
    import dyngrad

    dyngrad.manual_seed(3)
    logits = dyngrad.tensor([[1.0, 0.0, -1.0, 2.0]]).expand(6000, 4).contiguous()
    logits.requires_grad_(True)
    hard = dyngrad.nn.functional.gumbel_softmax(logits, hard=True)
    probs = np.exp([1.0, 0.0, -1.0, 2.0]) / np.exp([1.0, 0.0, -1.0, 2.0]).sum()
    # the Gumbel-max trick: the argmax of logits + Gumbel noise follows softmax(logits)
    np.testing.assert_allclose(hard.detach().numpy().mean(0), probs, atol=0.02)
    assert hard.grad_fn.name() == "AddBackward0" and set(np.unique(hard.detach().numpy())) <= {0, 1}
    soft = dyngrad.nn.functional.gumbel_softmax(logits[:3], tau=0.5)
    assert soft.grad_fn.name() == "SoftmaxBackward0"
    np.testing.assert_allclose(soft.detach().numpy().sum(-1), 1.0, rtol=1e-6)
    hard[:, 0].sum().backward()  # the soft sample's gradient, as torch's straight-through
    assert logits.grad is not None and np.abs(logits.grad.numpy()).sum() > 0
