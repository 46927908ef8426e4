"""Every layer's forward and gradients against torch, from the same weights and inputs."""

from __future__ import annotations

import numpy as np
import pytest

from .parity import assert_same, twins

R = np.random.default_rng(1234)


def x(*shape, low=-2.0, high=2.0):
    return R.uniform(low, high, shape)


def idx(high, *shape):
    return R.integers(0, high, shape)


CASES = {
    "linear": (lambda nn: nn.Linear(4, 3), [x(5, 4)]),
    "linear_3d": (lambda nn: nn.Linear(4, 3), [x(2, 5, 4)]),
    "linear_1d": (lambda nn: nn.Linear(4, 3), [x(4)]),
    "linear_nobias": (lambda nn: nn.Linear(4, 3, bias=False), [x(2, 5, 4)]),
    "bilinear": (lambda nn: nn.Bilinear(3, 2, 4), [x(5, 3), x(5, 2)]),
    "identity": (lambda nn: nn.Identity(7, foo=1), [x(2, 3)]),
    "flatten": (lambda nn: nn.Flatten(), [x(2, 3, 4)]),
    "unflatten": (lambda nn: nn.Unflatten(1, (2, 3)), [x(4, 6)]),
    "conv1d": (lambda nn: nn.Conv1d(3, 4, 3, stride=2, padding=1), [x(2, 3, 9)]),
    "conv1d_unbatched": (lambda nn: nn.Conv1d(3, 4, 2), [x(3, 6)]),
    "conv2d": (lambda nn: nn.Conv2d(2, 4, 3), [x(2, 2, 6, 5)]),
    "conv2d_geometry": (
        lambda nn: nn.Conv2d(
            4, 6, (3, 2), stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2
        ),
        [x(2, 4, 7, 6)],
    ),
    "conv2d_same_even": (lambda nn: nn.Conv2d(2, 3, 4, padding="same"), [x(1, 2, 5, 6)]),
    "conv2d_valid": (lambda nn: nn.Conv2d(2, 3, 3, padding="valid", bias=False), [x(1, 2, 5, 6)]),
    "conv2d_reflect": (
        lambda nn: nn.Conv2d(2, 3, 3, padding=1, padding_mode="reflect"),
        [x(1, 2, 5, 6)],
    ),
    "conv2d_circular": (
        lambda nn: nn.Conv2d(2, 3, 3, padding=2, padding_mode="circular"),
        [x(1, 2, 5, 6)],
    ),
    "conv2d_replicate": (
        lambda nn: nn.Conv2d(2, 3, 3, padding=1, padding_mode="replicate"),
        [x(1, 2, 5, 6)],
    ),
    "conv3d": (lambda nn: nn.Conv3d(2, 2, 2), [x(1, 2, 3, 4, 3)]),
    "conv_transpose1d": (lambda nn: nn.ConvTranspose1d(3, 2, 3, stride=2), [x(2, 3, 5)]),
    "conv_transpose2d": (
        lambda nn: nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2),
        [x(2, 4, 3, 4)],
    ),
    "conv_transpose2d_dilated": (
        lambda nn: nn.ConvTranspose2d(2, 3, (2, 3), dilation=2),
        [x(1, 2, 3, 3)],
    ),
    "maxpool1d": (lambda nn: nn.MaxPool1d(3, 2, 1, ceil_mode=True), [x(2, 3, 8)]),
    "maxpool2d": (lambda nn: nn.MaxPool2d(2), [x(2, 3, 6, 5)]),
    "maxpool2d_geometry": (
        lambda nn: nn.MaxPool2d((3, 2), stride=(2, 1), padding=1, dilation=(1, 2), ceil_mode=True),
        [x(2, 2, 7, 6)],
    ),
    "avgpool1d": (lambda nn: nn.AvgPool1d(3, 2, 1), [x(2, 3, 8)]),
    "avgpool2d": (
        lambda nn: nn.AvgPool2d(3, 2, 1, ceil_mode=True, count_include_pad=False),
        [x(2, 2, 7, 6)],
    ),
    "avgpool2d_divisor": (lambda nn: nn.AvgPool2d(2, divisor_override=3), [x(1, 2, 4, 4)]),
    "adaptive_avg_pool2d": (lambda nn: nn.AdaptiveAvgPool2d((3, 2)), [x(2, 3, 7, 5)]),
    "adaptive_avg_pool2d_1": (lambda nn: nn.AdaptiveAvgPool2d(1), [x(2, 3, 4, 5)]),
    "adaptive_avg_pool1d": (lambda nn: nn.AdaptiveAvgPool1d(3), [x(2, 3, 7)]),
    "batchnorm1d": (lambda nn: nn.BatchNorm1d(3), [x(5, 3)]),
    "batchnorm1d_3d": (lambda nn: nn.BatchNorm1d(3, momentum=None), [x(4, 3, 5)]),
    "batchnorm2d": (lambda nn: nn.BatchNorm2d(3), [x(2, 3, 4, 4)]),
    "batchnorm2d_noaffine": (
        lambda nn: nn.BatchNorm2d(3, affine=False, track_running_stats=False),
        [x(2, 3, 4, 4)],
    ),
    "layernorm": (lambda nn: nn.LayerNorm((3, 4)), [x(2, 3, 4)]),
    "layernorm_nobias": (lambda nn: nn.LayerNorm(4, bias=False, eps=1e-3), [x(2, 3, 4)]),
    "groupnorm": (lambda nn: nn.GroupNorm(2, 4), [x(3, 4, 5)]),
    "embedding": (lambda nn: nn.Embedding(10, 3), [idx(10, 4, 5)]),
    "embedding_padding": (
        lambda nn: nn.Embedding(6, 3, padding_idx=2),
        [np.array([[2, 0, 2], [5, 2, 1]])],
    ),
    "embedding_freq": (
        lambda nn: nn.Embedding(6, 3, scale_grad_by_freq=True),
        [np.array([1, 1, 3, 1, 0])],
    ),
    "rnn": (lambda nn: nn.RNN(3, 4), [x(5, 2, 3)]),
    "rnn_relu_deep": (lambda nn: nn.RNN(3, 4, 2, nonlinearity="relu", bias=False), [x(4, 2, 3)]),
    "lstm": (lambda nn: nn.LSTM(3, 4), [x(5, 2, 3)]),
    "lstm_deep_bidirectional": (
        lambda nn: nn.LSTM(3, 4, 2, batch_first=True, bidirectional=True),
        [x(2, 5, 3)],
    ),
    "lstm_unbatched": (lambda nn: nn.LSTM(3, 2), [x(4, 3)]),
    "gru": (lambda nn: nn.GRU(3, 4, 2), [x(5, 2, 3)]),
    "gru_bidirectional_batch_first": (
        lambda nn: nn.GRU(3, 4, batch_first=True, bidirectional=True),
        [x(2, 4, 3)],
    ),
    "rnn_cell": (lambda nn: nn.RNNCell(3, 4), [x(2, 3), x(2, 4)]),
    "lstm_cell": (lambda nn: nn.LSTMCell(3, 4), [x(2, 3)]),
    "gru_cell": (lambda nn: nn.GRUCell(3, 4), [x(3), x(4)]),
}


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize("name", list(CASES))
def test_layer_matches_torch(name, torch):
    make, inputs = CASES[name]
    assert_same(torch, twins(torch, make), inputs)


def test_layer_float32_matches_torch(torch):
    pair = twins(torch, lambda nn: nn.Conv2d(2, 3, 3, padding=1), dtype="float32")
    out = assert_same(torch, pair, [x(2, 2, 5, 5).astype(np.float32)], rtol=1e-5, atol=1e-5)
    assert out[0].dtype.name == "float32"


def test_lstm_initial_state(torch):
    pair = twins(torch, lambda nn: nn.LSTM(3, 4, 2, bidirectional=True))
    h0, c0 = x(4, 2, 4), x(4, 2, 4)
    assert_same(torch, pair, [x(5, 2, 3), h0, c0], call=lambda m, i, h, c: m(i, (h, c)))


def test_gru_initial_state_unbatched(torch):
    pair = twins(torch, lambda nn: nn.GRU(3, 4, 2))
    assert_same(torch, pair, [x(5, 3), x(2, 4)])


def test_rnn_weight_names_and_shapes(torch):
    theirs, ours = twins(torch, lambda nn: nn.GRU(3, 4, 2, bidirectional=True))
    assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == [
        (n, tuple(p.shape)) for n, p in theirs.named_parameters()
    ]


def test_batchnorm_running_stats_and_eval(torch):
    theirs, ours = twins(torch, lambda nn: nn.BatchNorm2d(3, momentum=0.3))
    for _ in range(3):
        batch = x(4, 3, 2, 2)
        assert_same(torch, (theirs, ours), [batch])
    for key in ("running_mean", "running_var", "num_batches_tracked"):
        np.testing.assert_allclose(
            ours.state_dict()[key].numpy(), theirs.state_dict()[key].numpy(), rtol=1e-12
        )
    theirs.eval()
    ours.eval()
    assert_same(torch, (theirs, ours), [x(2, 3, 2, 2)])


def test_batchnorm_cumulative_average(torch):
    theirs, ours = twins(torch, lambda nn: nn.BatchNorm1d(2, momentum=None))
    for _ in range(3):
        assert_same(torch, (theirs, ours), [x(5, 2)])
    np.testing.assert_allclose(ours.running_var.numpy(), theirs.running_var.numpy())


def test_dropout_layers_are_identity_in_eval(torch):
    for make in (lambda nn: nn.Dropout(0.5), lambda nn: nn.Dropout2d(0.5)):
        theirs, ours = twins(torch, make)
        theirs.eval()
        ours.eval()
        assert_same(torch, (theirs, ours), [x(2, 3, 4, 4)])


def test_rnn_dropout_only_in_training():
    import dyngrad

    lstm = dyngrad.nn.LSTM(3, 4, 2, dropout=0.5).eval()
    inp = dyngrad.randn(5, 2, 3)
    first, second = lstm(inp)[0], lstm(inp)[0]
    assert np.array_equal(first.detach().numpy(), second.detach().numpy())
    lstm.train()
    a, b = lstm(inp)[0], lstm(inp)[0]
    assert not np.array_equal(a.detach().numpy(), b.detach().numpy())


@pytest.mark.parametrize(
    "name,make,kwargs",
    [
        ("mha", lambda nn: nn.MultiheadAttention(8, 2), {}),
        ("mha_no_weights", lambda nn: nn.MultiheadAttention(8, 2), {"need_weights": False}),
        (
            "mha_per_head",
            lambda nn: nn.MultiheadAttention(8, 4, bias=False),
            {"average_attn_weights": False},
        ),
        ("mha_kvdim", lambda nn: nn.MultiheadAttention(8, 2, kdim=3, vdim=5), {}),
        (
            "mha_bias_kv_zero_attn",
            lambda nn: nn.MultiheadAttention(8, 2, add_bias_kv=True, add_zero_attn=True),
            {},
        ),
    ],
)
def test_multihead_attention_matches_torch(name, make, kwargs, torch):
    pair = twins(torch, make)
    kdim = pair[0].kdim
    vdim = pair[0].vdim
    q, k, v = x(4, 2, 8), x(5, 2, kdim), x(5, 2, vdim)
    assert_same(torch, pair, [q, k, v], call=lambda m, a, b, c: m(a, b, c, **kwargs))


def test_multihead_attention_masks_batch_first(torch):
    pair = twins(torch, lambda nn: nn.MultiheadAttention(6, 3, batch_first=True))
    attn_mask = np.triu(np.ones((4, 4), dtype=bool), 1)
    padding = np.array([[False, False, False, True], [False, False, False, False]])
    q = x(2, 4, 6)

    def call(m, q, attn, pad):
        return m(q, q, q, attn_mask=attn, key_padding_mask=pad)

    assert_same(torch, pair, [q, attn_mask, padding], call=call)


def test_multihead_attention_float_mask_unbatched(torch):
    pair = twins(torch, lambda nn: nn.MultiheadAttention(4, 2))
    mask = x(3, 3)
    assert_same(torch, pair, [x(3, 4), mask], call=lambda m, q, a: m(q, q, q, attn_mask=a))


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_transformer_encoder_layer_matches_torch(norm_first, activation, torch):
    def make(nn):
        return nn.TransformerEncoderLayer(
            8, 2, 16, dropout=0.0, activation=activation, batch_first=True, norm_first=norm_first
        )

    pair = twins(torch, make)
    pair[0].eval()
    pair[1].eval()
    padding = np.array([[False, False, True], [False, False, False]])
    assert_same(
        torch, pair, [x(2, 3, 8), padding], call=lambda m, s, p: m(s, src_key_padding_mask=p)
    )


def test_transformer_encoder_matches_torch(torch):
    def make(nn):
        layer = nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0)
        return nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(4), enable_nested_tensor=False)

    assert_same(torch, twins(torch, make), [x(3, 2, 4)])


ACTIVATIONS = [
    lambda nn: nn.ReLU(),
    lambda nn: nn.LeakyReLU(0.2),
    lambda nn: nn.ELU(0.7),
    lambda nn: nn.SELU(),
    lambda nn: nn.CELU(1.3),
    lambda nn: nn.GELU(),
    lambda nn: nn.GELU("tanh"),
    lambda nn: nn.SiLU(),
    lambda nn: nn.Mish(),
    lambda nn: nn.Softplus(2.0, 1.0),
    lambda nn: nn.Softsign(),
    lambda nn: nn.Hardtanh(-0.5, 1.5),
    lambda nn: nn.ReLU6(),
    lambda nn: nn.Hardsigmoid(),
    lambda nn: nn.Hardswish(),
    lambda nn: nn.Sigmoid(),
    lambda nn: nn.Tanh(),
    lambda nn: nn.LogSigmoid(),
    lambda nn: nn.Tanhshrink(),
    lambda nn: nn.Threshold(0.3, -1.0),
    lambda nn: nn.Softmax(1),
    lambda nn: nn.LogSoftmax(-1),
    lambda nn: nn.Softmin(0),
    lambda nn: nn.GLU(),
    lambda nn: nn.PReLU(),
    lambda nn: nn.PReLU(3, 0.1),
    lambda nn: nn.Hardshrink(0.4),
    lambda nn: nn.Softshrink(0.6),
    lambda nn: nn.Softmax2d(),
]


@pytest.mark.parametrize("i", range(len(ACTIVATIONS)))
def test_activation_module_matches_torch(i, torch):
    theirs, ours = twins(torch, ACTIVATIONS[i])
    assert repr(ours) == repr(theirs)
    assert_same(torch, (theirs, ours), [x(2, 3, 4, 2, low=-7, high=7)])


@pytest.mark.parametrize(
    "make",
    [
        lambda nn: nn.ReLU(inplace=True),
        lambda nn: nn.LeakyReLU(0.1, inplace=True),
        lambda nn: nn.ELU(inplace=True),
        lambda nn: nn.Hardtanh(inplace=True),
        lambda nn: nn.SiLU(inplace=True),
        lambda nn: nn.ReLU6(inplace=True),
    ],
)
def test_inplace_activation_after_a_layer(make, torch):
    def build(nn):
        return nn.Sequential(nn.Linear(3, 4), make(nn))

    theirs, ours = twins(torch, build)
    out = assert_same(torch, (theirs, ours), [x(5, 3)])
    t_out = theirs(torch.from_numpy(x(5, 3)))
    assert out[0].grad_fn.name() == t_out.grad_fn.name()
