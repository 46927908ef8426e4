"""After the same seed, nn.init and every module's default initialisation give PyTorch's
weights bit for bit, and dropout zeroes PyTorch's elements."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

pytestmark = pytest.mark.filterwarnings("ignore:Initializing zero-element tensors")


def _both(torch, make, seed=3):
    out = []
    for lib in (dyngrad, torch):
        lib.manual_seed(seed)
        out.append(make(lib))
    return out


def _params(module) -> list:
    return [(name, p.detach().numpy()) for name, p in module.named_parameters()]


INITS = [
    "uniform_(w, -0.3, 0.7)",
    "normal_(w, 0.1, 0.02)",
    "xavier_uniform_(w)",
    "xavier_normal_(w, gain=2.0)",
    "kaiming_uniform_(w, a=5 ** 0.5)",
    "kaiming_uniform_(w, mode='fan_out', nonlinearity='relu')",
    "kaiming_normal_(w)",
    "trunc_normal_(w, std=0.02)",
    "trunc_normal_(w, mean=0.0, std=1.0, a=-1.0, b=1.5)",
    "trunc_normal_(w, mean=0.0, std=1.0, a=0.5, b=0.8)",  # the uniform-acceptance branch
    "sparse_(w, 0.3)",
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("call", INITS)
def test_init_functions_match_torch(call, dtype, torch):
    def make(lib):
        w = lib.empty(30, 20, dtype=getattr(lib, dtype))
        eval(f"lib.nn.init.{call}", {"lib": lib, "w": w})
        return w.numpy()

    ours, theirs = _both(torch, make)
    np.testing.assert_array_equal(ours, theirs)


def test_init_functions_take_a_generator(torch):
    def make(lib):
        g = lib.Generator().manual_seed(11)
        w = lib.empty(4, 6)
        lib.nn.init.kaiming_uniform_(w, generator=g)
        return lib.nn.init.trunc_normal_(w, std=0.5, generator=g).numpy()

    ours, theirs = _both(torch, make)
    np.testing.assert_array_equal(ours, theirs)


def test_orthogonal_draws_torchs_normals_then_a_qr(torch):
    ours, theirs = _both(torch, lambda lib: lib.nn.init.orthogonal_(lib.empty(6, 10)).numpy())
    np.testing.assert_allclose(ours, theirs, atol=1e-6)  # LAPACK's QR, not MKL's


MODULES = [
    "Linear(7, 5)",
    "Linear(7, 5, bias=False, dtype=lib.float64)",
    "Bilinear(3, 4, 5)",
    "Conv1d(3, 4, 3)",
    "Conv2d(4, 8, 3, groups=2)",
    "Conv3d(2, 3, 2)",
    "ConvTranspose2d(3, 4, 3)",
    "Embedding(10, 4, padding_idx=2)",
    "RNN(3, 5, num_layers=2)",
    "LSTM(3, 5, num_layers=2, bidirectional=True)",
    "GRU(3, 5, batch_first=True)",
    "LSTMCell(3, 5)",
    "GRUCell(3, 5)",
    "RNNCell(3, 5)",
    "MultiheadAttention(8, 2)",
    "MultiheadAttention(8, 2, kdim=4, vdim=6, add_bias_kv=True)",
    "TransformerEncoderLayer(8, 2, 16)",
    "Transformer(8, 2, 1, 1, 16)",
    "PReLU()",
    "BatchNorm2d(4)",
    "LayerNorm(4)",
    "EmbeddingBag(10, 4, padding_idx=2)",
    "RNNCellBase(3, 5, True, 2)",
    "AdaptiveLogSoftmaxWithLoss(8, 20, [4, 10], div_value=2.0, head_bias=True)",
]


@pytest.mark.parametrize("spec", MODULES)
def test_default_initialisation_matches_torch(spec, torch):
    ours, theirs = _both(torch, lambda lib: _params(eval(f"lib.nn.{spec}", {"lib": lib})))
    assert [name for name, _ in ours] == [name for name, _ in theirs]
    for (name, a), (_, b) in zip(ours, theirs):
        np.testing.assert_array_equal(a, b, err_msg=name)


@pytest.mark.parametrize(
    "call",
    [
        "F.dropout(x, 0.3)",
        "F.dropout(x, 0.5, inplace=True)",
        "F.dropout(x.t(), 0.2)",
        "F.dropout2d(x.reshape(4, 5, 3, 2), 0.4)",
        "F.dropout1d(x.reshape(4, 5, 6), 0.5)",
        "F.dropout3d(x.reshape(2, 3, 4, 5, 1), 0.25)",
        "lib.nn.Dropout(0.1)(x)",
        "lib.nn.AlphaDropout(0.3)(x)",
        "lib.nn.FeatureAlphaDropout(0.3)(x.reshape(4, 5, 6))",
        "lib.nn.RReLU(0.1, 0.4)(x)",
        "F.dropout(x, 1.0)",
    ],
)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dropout_zeroes_torchs_elements(call, dtype, torch):
    def make(lib):
        x = lib.arange(1.0, 121.0, dtype=getattr(lib, dtype)).reshape(20, 6)
        env = {"lib": lib, "F": lib.nn.functional, "x": x}
        first = eval(call, env).detach().numpy().copy()
        return first, eval(call, env).detach().numpy(), lib.rand(2).numpy()

    for a, b in zip(*_both(torch, make)):
        np.testing.assert_array_equal(a, b)
