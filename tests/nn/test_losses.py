"""Losses: values, gradients and grad_fn names against torch, for every reduction and option."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

R = np.random.default_rng(7)
LOGITS = R.standard_normal((5, 4)) * 3
LOGITS_ND = R.standard_normal((2, 4, 3))
TARGET = np.array([0, 3, 1, 1, 2])
TARGET_IGNORED = np.array([0, -100, 1, 3, -100])
TARGET_ND = R.integers(0, 4, (2, 3))
PROBS = R.dirichlet(np.ones(4), 5)
REG_X, REG_Y = R.standard_normal((3, 4)) * 2, R.standard_normal((3, 4)) * 2
P = R.uniform(0.05, 0.95, (3, 4))
Y01 = R.uniform(0, 1, (3, 4))
W4 = R.uniform(0.2, 2.0, 4)


def _run(module, expr, arrays, grads):
    env = {"F": module.nn.functional, "t": module}
    for name, value in arrays.items():
        tensor = module.from_numpy(value.copy())
        if name in grads:
            tensor.requires_grad_(True)
        env[name] = tensor
    out = eval(expr, {}, env)
    return env, out


CASES = [
    ("F.cross_entropy(x, y, reduction=r)", {"x": LOGITS, "y": TARGET}),
    ("F.cross_entropy(x, y, weight=w, reduction=r)", {"x": LOGITS, "y": TARGET, "w": W4}),
    (
        "F.cross_entropy(x, y, weight=w, ignore_index=-100, reduction=r)",
        {"x": LOGITS, "y": TARGET_IGNORED, "w": W4},
    ),
    ("F.cross_entropy(x, y, ignore_index=3, reduction=r)", {"x": LOGITS, "y": TARGET}),
    ("F.cross_entropy(x, y, label_smoothing=0.2, reduction=r)", {"x": LOGITS, "y": TARGET}),
    (
        "F.cross_entropy(x, y, weight=w, label_smoothing=0.1, reduction=r)",
        {"x": LOGITS, "y": TARGET_IGNORED, "w": W4},
    ),
    ("F.cross_entropy(x, y, reduction=r)", {"x": LOGITS_ND, "y": TARGET_ND}),
    ("F.cross_entropy(x, y, reduction=r)", {"x": LOGITS, "y": PROBS}),
    (
        "F.cross_entropy(x, y, weight=w, label_smoothing=0.3, reduction=r)",
        {"x": LOGITS, "y": PROBS, "w": W4},
    ),
    ("F.cross_entropy(x[0], y[0], reduction=r)", {"x": LOGITS, "y": TARGET}),
    (
        "F.nll_loss(F.log_softmax(x, 1), y, weight=w, reduction=r)",
        {"x": LOGITS, "y": TARGET, "w": W4},
    ),
    ("F.mse_loss(x, y, reduction=r)", {"x": REG_X, "y": REG_Y}),
    ("F.mse_loss(x, y, reduction=r, weight=w)", {"x": REG_X, "y": REG_Y, "w": Y01}),
    ("F.l1_loss(x, y, reduction=r)", {"x": REG_X, "y": REG_Y}),
    ("F.smooth_l1_loss(x, y, reduction=r, beta=0.7)", {"x": REG_X, "y": REG_Y}),
    ("F.smooth_l1_loss(x, y, reduction=r, beta=0.0)", {"x": REG_X, "y": REG_Y}),
    ("F.huber_loss(x, y, reduction=r, delta=1.3)", {"x": REG_X, "y": REG_Y}),
    ("F.huber_loss(x, y, reduction=r, weight=w)", {"x": REG_X, "y": REG_Y, "w": Y01}),
    ("F.binary_cross_entropy(x, y, reduction=r)", {"x": P, "y": Y01}),
    ("F.binary_cross_entropy(x, y, weight=w, reduction=r)", {"x": P, "y": Y01, "w": W4}),
    ("F.binary_cross_entropy_with_logits(x, y, reduction=r)", {"x": REG_X * 10, "y": Y01}),
    (
        "F.binary_cross_entropy_with_logits(x, y, weight=w, pos_weight=w * 2, reduction=r)",
        {"x": REG_X, "y": Y01, "w": W4},
    ),
    ("F.kl_div(F.log_softmax(x, 1), y, reduction=r)", {"x": LOGITS, "y": PROBS}),
    (
        "F.kl_div(F.log_softmax(x, 1), y.log(), reduction=r, log_target=True)",
        {"x": LOGITS, "y": PROBS},
    ),
]


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_loss_matches_torch(case, reduction, torch):
    import warnings

    expr, arrays = CASES[case]
    expr = expr.replace("reduction=r", f"reduction={reduction!r}")
    grads = {k for k, v in arrays.items() if v.dtype.kind == "f" and k != "w"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_env, t_out = _run(torch, expr, arrays, grads)
        d_env, d_out = _run(dyngrad, expr, arrays, grads)
    np.testing.assert_allclose(
        d_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-10, atol=1e-12
    )
    assert d_out.grad_fn.name() == t_out.grad_fn.name()
    cotangent = np.random.default_rng(case).standard_normal(tuple(t_out.shape))
    (t_out * torch.from_numpy(cotangent)).sum().backward()
    (d_out * dyngrad.from_numpy(cotangent)).sum().backward()
    for name in grads:
        np.testing.assert_allclose(
            d_env[name].grad.numpy(), t_env[name].grad.numpy(), rtol=1e-9, atol=1e-12, err_msg=name
        )


def test_cross_entropy_is_stable_for_huge_logits(torch):
    logits = np.array([[1000.0, -1000.0, 0.0], [-800.0, 800.0, 799.0]], np.float32)
    target = np.array([1, 2])
    ours = dyngrad.nn.functional.cross_entropy(dyngrad.from_numpy(logits), dyngrad.tensor(target))
    theirs = torch.nn.functional.cross_entropy(torch.from_numpy(logits), torch.tensor(target))
    assert np.isfinite(ours.item())
    np.testing.assert_allclose(ours.item(), theirs.item(), rtol=1e-6)


def test_bce_clamps_log_at_minus_100(torch):
    x, y = np.array([0.0, 1.0, 1.0]), np.array([1.0, 0.0, 1.0])
    ours = dyngrad.nn.functional.binary_cross_entropy(
        dyngrad.from_numpy(x), dyngrad.from_numpy(y), reduction="none"
    )
    theirs = torch.nn.functional.binary_cross_entropy(
        torch.from_numpy(x), torch.from_numpy(y), reduction="none"
    )
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_all_ignored_mean_is_nan(torch):
    x = dyngrad.zeros(2, 3, requires_grad=True)
    loss = dyngrad.nn.functional.cross_entropy(x, dyngrad.tensor([-100, -100]))
    assert np.isnan(loss.item())


@pytest.mark.parametrize(
    "expr",
    [
        "F.cross_entropy(t.zeros(4, 5), t.tensor([0, 1, 2, 5]))",
        "F.cross_entropy(t.zeros(4, 5), t.tensor([0, 1, 2]))",
        "F.cross_entropy(t.zeros(4, 5), t.tensor([0., 1, 2, 3]))",
        "F.cross_entropy(t.zeros(4, 5), t.zeros(4, 4))",
        "F.cross_entropy(t.zeros(4, 5), t.tensor([0, 1, 2, 3]), weight=t.ones(3))",
        "F.cross_entropy(t.zeros(4, 5), t.tensor([0, 1, 2, 3]), label_smoothing=1.5)",
        "F.nll_loss(t.zeros(4, 5), t.tensor([0, 1, 2, 3]), reduction='foo')",
        "F.binary_cross_entropy(t.ones(3) * 2, t.ones(3))",
        "F.binary_cross_entropy(t.ones(3) / 2, t.ones(3, 1))",
        "F.binary_cross_entropy_with_logits(t.ones(3), t.ones(3, 1))",
        "F.smooth_l1_loss(t.ones(3), t.ones(3), beta=-1)",
        "F.huber_loss(t.ones(3), t.ones(3), delta=0)",
        "F.kl_div(t.ones(3), t.ones(3), reduction='foo')",
        "F.mse_loss(t.ones(4, 5), t.ones(3))",
    ],
)
def test_loss_errors_match_torch(expr, torch):
    import warnings

    errors = []
    for t in (torch, dyngrad):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception) as info:
                eval(expr, {"F": t.nn.functional, "t": t})
        errors.append((type(info.value), str(info.value).splitlines()[0]))
    assert errors[1] == errors[0]


def test_size_mismatch_warning_matches_torch(torch):
    messages = []
    for t in (torch, dyngrad):
        with pytest.warns(UserWarning) as record:
            t.nn.functional.mse_loss(t.ones(4, 1), t.ones(4))
        messages.append(str(record[0].message))
    assert messages[1] == messages[0]


@pytest.mark.parametrize(
    "make",
    [
        "nn.CrossEntropyLoss(weight=t.ones(3) * 2, label_smoothing=0.1, ignore_index=1)",
        "nn.NLLLoss(reduction='sum')",
        "nn.MSELoss()",
        "nn.L1Loss(reduction='none')",
        "nn.SmoothL1Loss(beta=0.5)",
        "nn.HuberLoss(delta=0.5)",
        "nn.BCELoss()",
        "nn.BCEWithLogitsLoss(pos_weight=t.ones(3) * 3)",
        "nn.KLDivLoss(reduction='batchmean')",
    ],
)
def test_loss_modules_match_torch(make, torch):
    rng = np.random.default_rng(3)
    logits, labels = rng.standard_normal((4, 3)).astype(np.float32), np.array([0, 2, 1, 1])
    probs = rng.uniform(0.1, 0.9, (4, 3)).astype(np.float32)
    outs = []
    for t in (torch, dyngrad):
        loss = eval(make, {"nn": t.nn, "t": t})
        name = type(loss).__name__
        if name in ("CrossEntropyLoss", "NLLLoss"):
            args = (t.from_numpy(logits), t.from_numpy(labels))
        elif name == "BCELoss":
            args = (t.from_numpy(probs), t.from_numpy(probs[::-1].copy()))
        elif name == "KLDivLoss":
            args = (t.from_numpy(logits).log_softmax(1), t.from_numpy(probs))
        else:
            args = (t.from_numpy(logits), t.from_numpy(probs))
        outs.append(loss(*args).numpy())
        assert list(loss.state_dict()) == [
            k for k in ("weight", "pos_weight") if getattr(loss, k, None) is not None
        ]
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-6)
