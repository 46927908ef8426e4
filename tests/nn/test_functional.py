"""nn.functional beyond the layers: padding, one_hot, normalize, dropout, attention, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngrad
import dyngrad.nn.functional as F

R = np.random.default_rng(11)


def _both(torch, expr, **arrays):
    """Evaluate `expr` on both libraries (inputs require grad); return outputs and inputs."""
    results = []
    for t in (torch, dyngrad):
        env = {"F": t.nn.functional, "t": t}
        for k, v in arrays.items():
            tensor = t.from_numpy(v.copy())
            env[k] = tensor.requires_grad_(True) if v.dtype.kind == "f" else tensor
        results.append((eval(expr, {}, env), env))
    return results


@pytest.mark.parametrize(
    "expr",
    [
        "F.pad(x, (1, 2))",
        "F.pad(x, (1, 1, 2, 0), value=3.5)",
        "F.pad(x, (-1, 1))",
        "F.pad(x, (2, 1, 1, 2), mode='reflect')",
        "F.pad(x, (2, 1, 1, 2), mode='replicate')",
        "F.pad(x, (2, 1, 1, 3), mode='circular')",
        "F.normalize(x)",
        "F.normalize(x, p=1, dim=-1)",
        "F.cosine_similarity(x, x * 2 + 1)",
        "F.softmax(x, 0)",
        "F.log_softmax(x, -1)",
        "F.softmin(x, 1)",
        "F.glu(x, 1)",
        "F.linear(x, x[0, :3])",
        "F.linear(x, x[0], x[1, 0])",  # 3-d, one bias row: addmm on a flattened view
        "F.linear(x, x[0], x[1])",  # a bias of several rows: matmul, then add
        "F.linear(x.transpose(0, 1), x[0], x[1, 0])",  # not contiguous: matmul, then add
        "F.linear(x[0, 0], x[0], x[1, 0])",
        "F.linear(x[0], x[1], x[2, 0, 0])",
        "F.relu(x)",
        "F.bilinear(x[0], x[1], x[:2])",
        "F.scaled_dot_product_attention(x, x * 0.5, x + 1)",
        "F.scaled_dot_product_attention(x, x, x, is_causal=True)",
        "F.scaled_dot_product_attention(x, x, x, attn_mask=m)",
        "F.scaled_dot_product_attention(x, x, x, attn_mask=m > 0, scale=0.3)",
        "F.embedding(i, x[0])",
    ],
)
def test_functional_matches_torch(expr, torch):
    (t_out, t_env), (d_out, d_env) = _both(
        torch,
        expr,
        x=R.standard_normal((3, 4, 4)),
        m=R.standard_normal((4, 4)),
        i=np.array([[0, 3], [1, 1]]),
    )
    np.testing.assert_allclose(
        d_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-10, atol=1e-12
    )
    cot = R.standard_normal(tuple(t_out.shape))
    (t_out * torch.from_numpy(cot)).sum().backward()
    (d_out * dyngrad.from_numpy(cot)).sum().backward()
    np.testing.assert_allclose(
        d_env["x"].grad.numpy(), t_env["x"].grad.numpy(), rtol=1e-9, atol=1e-12
    )


def test_normalize_zero_vector_has_zero_grad(torch):
    (t_out, t_env), (d_out, d_env) = _both(torch, "F.normalize(x)", x=np.zeros((2, 3)))
    d_out.sum().backward()
    t_out.sum().backward()
    np.testing.assert_array_equal(d_env["x"].grad.numpy(), t_env["x"].grad.numpy())


def test_normalize_writes_out(torch):
    x = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    results = []
    for lib in (dyngrad, torch):
        out = lib.empty(4, 5)
        assert lib.nn.functional.normalize(lib.from_numpy(x), dim=1, out=out) is out
        results.append(out.numpy())
        with pytest.raises(RuntimeError, match="functions with out=... arguments don't support"):
            lib.nn.functional.normalize(lib.from_numpy(x).requires_grad_(), out=lib.empty(4, 5))
    np.testing.assert_allclose(results[0], results[1], rtol=1e-6)


def test_one_hot(torch):
    labels = np.array([[0, 2], [1, 3]])
    ours = F.one_hot(dyngrad.from_numpy(labels))
    theirs = torch.nn.functional.one_hot(torch.from_numpy(labels))
    assert ours.dtype is dyngrad.int64
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    assert F.one_hot(dyngrad.tensor([1]), 4).shape == (1, 4)


@pytest.mark.parametrize(
    "expr",
    [
        "F.one_hot(t.tensor([1, 2]), 2)",
        "F.one_hot(t.tensor([1., 2]))",
        "F.one_hot(t.tensor([1, -1]))",
        "F.pad(t.zeros(2, 3), (1,))",
        "F.pad(t.zeros(2, 3), (1, 1, 1, 1, 1, 1))",
        "F.pad(t.zeros(2, 3), (1, 1), mode='foo')",
        "F.dropout(t.zeros(2), 1.5)",
        "F.dropout1d(t.zeros(2, 3, 4, 5))",
        "F.conv2d(t.zeros(2, 5, 8, 8), t.zeros(4, 3, 3, 3))",
        "F.conv2d(t.zeros(8, 8), t.zeros(4, 3, 3, 3))",
        "F.conv2d(t.zeros(2, 5, 2, 2), t.zeros(4, 5, 3, 3))",
        "F.conv2d(t.zeros(2, 5, 8, 8), t.zeros(4, 5, 3, 3), stride=2, padding='same')",
        "F.conv2d(t.zeros(2, 5, 8, 8), t.zeros(4, 5, 3, 3), padding='foo')",
        "F.conv2d(t.zeros(2, 5, 8, 8), t.zeros(4, 5, 3, 3), groups=2)",
        "F.conv2d(t.zeros(2, 5, 8, 8), t.zeros(3, 5, 3, 3), bias=t.zeros(4))",
        "F.conv2d(t.zeros(2, 5, 8, 8), t.zeros(4, 5, 3, 3), padding=-1)",
        "F.conv2d(t.zeros(2, 5, 8, 8), t.zeros(4, 5, 3, 3), stride=0)",
        "F.conv_transpose2d(t.zeros(2, 5, 8, 8), t.zeros(4, 3, 3, 3))",
        "F.conv_transpose2d(t.zeros(2, 5, 8, 8), t.zeros(5, 3, 3, 3), stride=2, output_padding=2)",
        "F.conv1d(t.zeros(2, 5, 8, 8), t.zeros(4, 5, 3))",
        "F.max_pool2d(t.zeros(2, 3, 7, 7), 2, padding=2)",
        "F.max_pool2d(t.zeros(7, 7), 2)",
        "F.max_pool2d(t.zeros(2, 3, 7, 7), 9)",
        "F.max_pool2d(t.zeros(2, 3, 7, 7), 2, stride=0)",
        "F.max_pool1d(t.zeros(3, 7, 7), 2, padding=2)",
        "F.avg_pool2d(t.zeros(2, 3, 7, 7), 9)",
        "F.adaptive_avg_pool2d(t.zeros(7, 7), 2)",
        "F.batch_norm(t.zeros(1, 3), t.zeros(3), t.ones(3), training=True)",
        "F.batch_norm(t.zeros(2, 3), None, None, training=False)",
        "F.batch_norm(t.zeros(2, 3, 4, 4), t.zeros(4), t.ones(4))",
        "F.layer_norm(t.zeros(2, 3), (4,))",
        "F.group_norm(t.zeros(2, 6, 3), 4)",
        "F.layer_norm(t.zeros(2, 3), (3,), t.zeros(2))",
        "F.embedding(t.tensor([1., 2]), t.zeros(5, 3))",
        "F.embedding(t.tensor([1, 7]), t.zeros(5, 3))",
        "F.linear(t.zeros(3, 2), t.zeros(4, 5))",
        "F.linear(t.zeros(3, 2), t.zeros(4, 5), t.zeros(4))",
        "F.linear(t.zeros(3, 2).double(), t.zeros(4, 2), t.zeros(4))",
        "F.linear(t.zeros(5, 3, 2), t.zeros(4, 5))",
        "F.linear(t.zeros(2), t.zeros(4, 5))",
        "F.linear(t.zeros(3, 4), t.zeros(5, 4), t.zeros(5).double())",
        "F.linear(t.zeros(3, 4), t.zeros(5, 4), t.zeros(1, 1, 5))",
        "F.linear(t.zeros(3, 4), t.zeros(5, 4), t.zeros(2, 5))",
        "F.linear(t.zeros(4), t.zeros(5, 4), t.zeros(3))",
        "F.linear(t.zeros(2, 3, 4), t.zeros(5, 4), t.zeros(3))",
        "t.nn.BatchNorm1d(3)(t.zeros(2, 3, 4, 5))",
        "t.nn.BatchNorm2d(3)(t.zeros(2, 3, 4))",
        "t.nn.GroupNorm(4, 6)",
        "t.nn.Conv2d(5, 4, 3, padding='same', stride=2)",
        "t.nn.Conv2d(5, 4, 3, groups=2)",
        "t.nn.Conv2d(4, 5, 3, groups=2)",
        "t.nn.Embedding(5, 3, padding_idx=5)",
        "t.nn.MultiheadAttention(5, 2)",
        "t.nn.LSTM(3, 4)(t.zeros(5, 2, 4))",
        "t.nn.LSTM(3, 4)(t.zeros(5, 2, 3, 1))",
        "t.nn.LSTM(3, 4, 2)(t.zeros(5, 2, 3), (t.zeros(1, 2, 4), t.zeros(2, 2, 4)))",
        "t.nn.GRU(3, 4)(t.zeros(5, 2, 3), t.zeros(2, 2, 4))",
        "t.nn.GRU(3, 4)(t.zeros(5, 3), t.zeros(1, 2, 4))",
        "t.nn.RNN(3, 4, nonlinearity='foo')",
        "t.nn.RNNCell(3, 4)(t.zeros(2, 4))",
        "t.nn.Dropout(2.0)",
    ],
)
def test_errors_match_torch(expr, torch):
    errors = []
    for t in (torch, dyngrad):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception) as info:
                eval(expr, {"F": t.nn.functional, "t": t})
        errors.append((type(info.value).__name__, str(info.value).splitlines()[0]))
    assert errors[1] == errors[0]


def test_softmax_implicit_dim_warns_as_torch(torch):
    for name in ("softmax", "log_softmax"):
        with pytest.warns(
            UserWarning, match=f"Implicit dimension choice for {name} has been deprecated"
        ):
            out = getattr(F, name)(dyngrad.ones(2, 3))
        assert out.shape == (2, 3)
        np.testing.assert_allclose(
            out.numpy(), getattr(torch.nn.functional, name)(torch.ones(2, 3), 1).numpy()
        )


def test_dropout_statistics_and_gradient():
    x = dyngrad.ones(200, 100, requires_grad=True)
    out = F.dropout(x, 0.3)
    kept = out.detach().numpy() != 0
    assert abs(kept.mean() - 0.7) < 0.02
    np.testing.assert_allclose(out.detach().numpy()[kept], 1 / 0.7, rtol=1e-6)
    assert out.grad_fn.name() == "MulBackward0"
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), out.detach().numpy())


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_dropout_scale_is_rounded_as_torch_rounds_it(torch, dtype):
    # 1 / (1 - p) is computed in float32 below float64, then rounded to the dtype
    for p in (0.1, 0.3, 0.77):
        ours = F.dropout(dyngrad.ones(200, dtype=getattr(dyngrad, dtype)), p).max().item()
        theirs = torch.nn.functional.dropout(torch.ones(200, dtype=getattr(torch, dtype)), p)
        assert ours == theirs.max().item(), p


def test_dropout_edge_probabilities():
    x = dyngrad.ones(3, 3, requires_grad=True)
    assert F.dropout(x, 0.0) is x
    assert F.dropout(x, 0.5, training=False) is x
    assert not F.dropout(x, 1.0).detach().numpy().any()


def test_dropout_inplace_and_seeded():
    dyngrad.manual_seed(3)
    a = F.dropout(dyngrad.ones(50), 0.5).numpy()
    dyngrad.manual_seed(3)
    b = dyngrad.ones(50)
    F.dropout(b, 0.5, inplace=True)
    np.testing.assert_array_equal(a, b.numpy())


def test_dropout2d_zeroes_whole_channels():
    out = F.dropout2d(dyngrad.ones(4, 50, 3, 3), 0.5).numpy()
    per_channel = out.reshape(4, 50, 9)
    assert np.all((per_channel == 0).all(-1) | (per_channel == 2).all(-1))
    with pytest.warns(UserWarning, match="dropout2d: Received a 3D input"):
        F.dropout2d(dyngrad.ones(2, 3, 4), 0.5)


@pytest.mark.parametrize(
    "name,shape",
    [("dropout2d", s) for s in [(6, 7), (2, 3, 4), (2, 3, 4, 5), (2, 3, 4, 5, 6), (5,)]]
    + [("dropout3d", s) for s in [(6, 7), (5, 3, 4), (2, 3, 4, 5), (2, 3, 4, 5, 6), (5,)]],
)
def test_feature_dropout_dims_masks_and_warnings_match_torch(name, shape, torch):
    def run(lib):
        lib.manual_seed(11)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                out = getattr(lib.nn.functional, name)(lib.ones(*shape), 0.5).numpy()
            except RuntimeError as exc:
                out = str(exc)
        return out, [str(w.message) for w in caught]

    (ours, our_warnings), (theirs, their_warnings) = run(dyngrad), run(torch)
    assert our_warnings == their_warnings
    if isinstance(theirs, str):
        assert ours == theirs
    else:
        np.testing.assert_array_equal(ours, theirs)


def test_embedding_max_norm_renormalises_rows(torch):
    weights = R.standard_normal((5, 3)) * 3
    ours = dyngrad.from_numpy(weights.copy())
    theirs = torch.from_numpy(weights.copy())
    idx = [0, 2, 2]
    F.embedding(dyngrad.tensor(idx), ours, max_norm=1.0)
    torch.nn.functional.embedding(torch.tensor(idx), theirs, max_norm=1.0)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)


@pytest.mark.parametrize(
    "values",
    [
        [[1.0, 1.0, 0.0, 2.0], [1.0, 0.5, 2.0, 2.0], [3.0, 3.0, 3.0, 3.0], [3.0, 3.0, 3.0, 3.0]],
        [
            [1.0, float("nan"), 0.0, 2.0],
            [float("nan"), 0.5, 2.0, float("nan")],
            [-float("inf"), -float("inf"), 1.0, 1.0],
            [-float("inf"), -float("inf"), 1.0, 1.0],
        ],
    ],
)
def test_max_pool_ties_and_nan_pick_torch_indices(values, torch):
    data = np.array(values).reshape(1, 1, 4, 4)
    ours_in = dyngrad.from_numpy(data.copy()).requires_grad_(True)
    theirs_in = torch.from_numpy(data.copy()).requires_grad_(True)
    ours, ours_idx = F.max_pool2d(ours_in, 2, 1, return_indices=True)
    theirs, theirs_idx = torch.nn.functional.max_pool2d(theirs_in, 2, 1, return_indices=True)
    np.testing.assert_array_equal(ours_idx.numpy(), theirs_idx.numpy())
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())
    ours.sum().backward()
    theirs.sum().backward()
    np.testing.assert_array_equal(ours_in.grad.numpy(), theirs_in.grad.numpy())


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "int64"])
def test_pdist_refuses_dtypes_as_torch(dtype, torch):
    raised = []
    for lib in (dyngrad, torch):
        with pytest.raises((RuntimeError, NotImplementedError)) as info:
            lib.nn.functional.pdist(lib.ones(3, 2, dtype=getattr(lib, dtype)))
        raised.append((type(info.value).__name__, str(info.value).splitlines()[0]))
    assert raised[0] == raised[1]
