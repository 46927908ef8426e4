"""nn.Transformer and its encoder/decoder stacks and layers against torch, from one set of weights."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import dyngrad

from .parity import assert_same, twins

R = np.random.default_rng(2024)


def x(*shape):
    return R.uniform(-2.0, 2.0, shape)


def quiet(make):
    """`make` with the enable_nested_tensor warning silenced (tests of it are below)."""

    def build(nn):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return make(nn)

    return build


def padding(length: int, lengths) -> np.ndarray:
    """A key padding mask: True past each sequence's length."""
    return np.arange(length)[None, :] >= np.asarray(lengths)[:, None]


def full_call(m, src, tgt, src_mask, tgt_mask, memory_mask, src_kpm, tgt_kpm, memory_kpm):
    return m(
        src,
        tgt,
        src_mask=src_mask,
        tgt_mask=tgt_mask,
        memory_mask=memory_mask,
        src_key_padding_mask=src_kpm,
        tgt_key_padding_mask=tgt_kpm,
        memory_key_padding_mask=memory_kpm,
    )


def transformer_inputs(batch_first: bool, s=5, t=4, n=3, e=8):
    src, tgt = (x(n, s, e), x(n, t, e)) if batch_first else (x(s, n, e), x(t, n, e))
    # bool masks on the source side, float ones on the target side (no mismatch warnings)
    src_mask = R.random((s, s)) < 0.2
    np.fill_diagonal(src_mask, False)
    memory_mask = np.zeros((t, s), dtype=bool)
    memory_mask[0, 1] = True
    src_kpm = padding(s, [5, 3, 5])
    tgt_kpm = np.where(padding(t, [4, 4, 2]), -np.inf, 0.0)
    causal = np.triu(np.full((t, t), -np.inf), 1)
    return [src, tgt, src_mask, causal, memory_mask, src_kpm, tgt_kpm, src_kpm.copy()]


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("mode", ["train", "eval"])
def test_transformer_matches_torch_with_every_mask(mode, batch_first, norm_first, torch):
    def make(nn):
        model = nn.Transformer(
            8, 2, 2, 2, 16, dropout=0.0, batch_first=batch_first, norm_first=norm_first
        )
        return model.train(mode == "train")

    pair = twins(torch, quiet(make))
    inputs = transformer_inputs(batch_first)
    out = assert_same(torch, pair, inputs, call=full_call)
    assert out[0].grad_fn.name() == "NativeLayerNormBackward0"


def test_transformer_unbatched_gelu_no_bias_matches_torch(torch):
    def make(nn):
        return nn.Transformer(6, 3, 1, 2, 10, dropout=0.0, activation="gelu", bias=False)

    assert_same(torch, twins(torch, quiet(make)), [x(4, 6), x(3, 6)])


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize(
    "activation", ["relu", "gelu", lambda nn: nn.GELU("tanh"), lambda nn: nn.functional.silu]
)
def test_decoder_layer_matches_torch(activation, norm_first, torch):
    def make(nn):
        act = activation if isinstance(activation, str) else activation(nn)
        return nn.TransformerDecoderLayer(
            8, 2, 12, dropout=0.0, activation=act, batch_first=True, norm_first=norm_first
        )

    tgt_kpm, memory_kpm = padding(4, [4, 2]), padding(3, [1, 3])

    def call(m, tgt, memory, tgt_mask, tgt_kpm, memory_kpm):
        return m(
            tgt,
            memory,
            tgt_mask=tgt_mask,
            tgt_key_padding_mask=tgt_kpm,
            memory_key_padding_mask=memory_kpm,
        )

    tgt_mask = R.random((4, 4)) < 0.3
    np.fill_diagonal(tgt_mask, False)
    inputs = [x(2, 4, 8), x(2, 3, 8), tgt_mask, tgt_kpm, memory_kpm]
    assert_same(torch, twins(torch, make), inputs, call=call)


def test_dropout_is_active_only_in_training():
    model = quiet(lambda nn: nn.Transformer(8, 2, 1, 1, 16, dropout=0.5))(dyngrad.nn)
    src, tgt = dyngrad.from_numpy(x(4, 2, 8)).float(), dyngrad.from_numpy(x(3, 2, 8)).float()
    run = lambda: model(src, tgt).detach().numpy()
    assert not np.allclose(run(), run())
    model.eval()
    np.testing.assert_array_equal(run(), run())


def test_decoder_detects_a_boolean_causal_mask_as_torch(torch):
    def make(nn):
        layer = nn.TransformerDecoderLayer(4, 2, 8, dropout=0.0)
        return nn.TransformerDecoder(layer, 2, norm=nn.LayerNorm(4))

    causal = np.triu(np.ones((5, 5), dtype=bool), 1)

    def call(m, tgt, memory, mask):
        return m(tgt, memory, tgt_mask=mask, memory_is_causal=False)

    assert_same(torch, twins(torch, make), [x(5, 2, 4), x(3, 2, 4), causal], call=call)


def test_encoder_is_causal_hint_overrides_the_mask_as_torch(torch):
    # PyTorch trusts is_causal=True: the causal mask is used, whatever `mask` says
    def make(nn):
        layer = nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0)
        return nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)

    src = x(5, 2, 4)
    pair = twins(torch, make)
    mask = R.random((5, 5)) < 0.3  # not causal, and (bool) needs no gradient
    out = assert_same(torch, pair, [src, mask], call=lambda m, s, k: m(s, mask=k, is_causal=True))
    causal = dyngrad.nn.Transformer.generate_square_subsequent_mask(5, dtype=dyngrad.float64)
    expected = pair[1](dyngrad.from_numpy(src), mask=causal)
    np.testing.assert_allclose(out[0].detach().numpy(), expected.detach().numpy(), rtol=1e-12)


def nested_outputs(torch, make, src, kpm, grad: bool):
    pair = twins(torch, quiet(make))
    outs = []
    for lib, model in zip((torch, dyngrad), pair):
        model.eval()
        with lib.set_grad_enabled(grad), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch: nested tensors are a prototype
            out = model(lib.from_numpy(src), src_key_padding_mask=lib.from_numpy(kpm))
        outs.append(out.detach().numpy())
    return outs


@pytest.mark.parametrize("grad", [False, True])
@pytest.mark.parametrize("lengths", [[3, 5, 1], [5, 5, 5]])
def test_encoder_eval_padding_outputs_match_torch(lengths, grad, torch):
    # eval + no_grad + batch_first: torch runs nested tensors and zeroes the padded rows
    def make(nn):
        layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
        return nn.TransformerEncoder(layer, 2)

    kpm = padding(5, lengths)
    theirs, ours = nested_outputs(torch, make, x(3, 5, 8), kpm, grad)
    np.testing.assert_allclose(ours, theirs, rtol=1e-7, atol=1e-9)
    if kpm.any():
        assert ours[kpm].any() == grad


def test_encoder_right_aligned_padding_is_not_zeroed_as_torch(torch):
    def make(nn):
        layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
        return nn.TransformerEncoder(layer, 1, norm=nn.LayerNorm(8))

    kpm = ~padding(4, [3, 4])[:, ::-1].copy()
    theirs, ours = nested_outputs(torch, make, x(2, 4, 8), kpm, grad=False)
    np.testing.assert_allclose(ours, theirs, rtol=1e-7, atol=1e-9)


def test_encoder_fastpath_switch_is_honoured_as_torch(torch):
    def make(nn):
        layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
        return nn.TransformerEncoder(layer, 1)

    torch.backends.mha.set_fastpath_enabled(False)
    dyngrad.backends.mha.set_fastpath_enabled(False)
    try:
        kpm = padding(4, [2, 4])
        theirs, ours = nested_outputs(torch, make, x(2, 4, 8), kpm, grad=False)
    finally:
        torch.backends.mha.set_fastpath_enabled(True)
        dyngrad.backends.mha.set_fastpath_enabled(True)
    np.testing.assert_allclose(ours, theirs, rtol=1e-7, atol=1e-9)
    assert ours[kpm].any()


@pytest.mark.parametrize(
    "make",
    [
        lambda nn: nn.Transformer(8, 2, 2, 1, 16),
        lambda nn: nn.Transformer(8, 2, 1, 1, 16, bias=False, norm_first=True),
        lambda nn: nn.Transformer(
            8, 2, custom_encoder=nn.Linear(8, 8), custom_decoder=nn.Identity()
        ),
        lambda nn: nn.TransformerDecoder(nn.TransformerDecoderLayer(4, 1, 4), 3),
    ],
)
def test_state_dict_keys_and_shapes_match_torch(make, torch):
    theirs, ours = quiet(make)(torch.nn), quiet(make)(dyngrad.nn)
    t_state, d_state = theirs.state_dict(), ours.state_dict()
    assert list(d_state) == list(t_state)
    assert [tuple(v.shape) for v in d_state.values()] == [tuple(v.shape) for v in t_state.values()]
    assert repr(ours) == repr(theirs)


def test_reset_parameters_is_xavier_uniform_on_matrices():
    model = quiet(lambda nn: nn.Transformer(8, 2, 1, 1, 16))(dyngrad.nn)
    for name, p in model.named_parameters():
        values = p.detach().numpy()
        if p.dim() > 1:
            fan_out, fan_in = p.shape
            assert np.abs(values).max() <= math.sqrt(6.0 / (fan_in + fan_out)), name
            assert values.std() > 0, name
        elif "in_proj_bias" in name or "out_proj.bias" in name:
            assert not values.any(), name


@pytest.mark.parametrize(
    "make",
    [
        lambda nn: nn.TransformerEncoderLayer(8, 2, 16),
        lambda nn: nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, norm_first=True),
        lambda nn: nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, bias=False),
        lambda nn: nn.TransformerEncoderLayer(8, 1, 16, batch_first=True),
        lambda nn: nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, activation=nn.Tanh()),
        lambda nn: nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, activation=nn.GELU()),
        lambda nn: nn.Linear(8, 8),
    ],
)
def test_enable_nested_tensor_warning_matches_torch(make, torch):
    def messages(nn):
        layer = make(nn)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            encoder = nn.TransformerEncoder(layer, 2)
        return [str(w.message) for w in caught], encoder.use_nested_tensor

    assert messages(dyngrad.nn) == messages(torch.nn)


def test_mismatched_mask_types_warn_as_torch(torch):
    def messages(lib):
        layer = lib.nn.TransformerEncoderLayer(4, 2, 8)
        mask, kpm = lib.zeros(3, 3), lib.zeros(2, 3, dtype=lib.bool)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            layer(lib.zeros(3, 2, 4), src_mask=mask, src_key_padding_mask=kpm)
        return [str(w.message) for w in caught]

    assert messages(dyngrad) == messages(torch) != []


ERRORS = {
    "batch": lambda t: t.nn.Transformer(8, 2, 1, 1, 16)(t.zeros(3, 2, 8), t.zeros(3, 3, 8)),
    "batch_first": lambda t: t.nn.Transformer(8, 2, 1, 1, 16, batch_first=True)(
        t.zeros(3, 2, 8), t.zeros(4, 2, 8)
    ),
    "d_model": lambda t: t.nn.Transformer(8, 2, 1, 1, 16)(t.zeros(3, 2, 8), t.zeros(3, 2, 6)),
    "activation": lambda t: t.nn.TransformerDecoderLayer(8, 2, 16, activation="tanh"),
    "heads": lambda t: t.nn.TransformerEncoderLayer(8, 3, 16),
    "mask_dtype": lambda t: t.nn.TransformerEncoderLayer(8, 2, 16)(
        t.zeros(3, 2, 8), src_mask=t.zeros(3, 3, dtype=t.long)
    ),
    "causal_hint": lambda t: t.nn.TransformerDecoderLayer(8, 2, 16)(
        t.zeros(3, 2, 8), t.zeros(4, 2, 8), tgt_is_causal=True
    ),
}


def _mha(t, query=(3, 2, 8), key=(3, 2, 8), **masks):
    mha = t.nn.MultiheadAttention(8, 2)
    q, k = t.zeros(*query), t.zeros(*key)
    kwargs = {name: t.zeros(*shape, dtype=t.bool) for name, shape in masks.items()}
    return mha(q, k, k, **kwargs)


ERRORS.update(
    {
        "mha 2d mask": lambda t: _mha(t, attn_mask=(4, 4)),
        "mha 2d mask source": lambda t: _mha(t, key=(5, 2, 8), attn_mask=(3, 3)),
        "mha 3d mask": lambda t: _mha(t, attn_mask=(2, 3, 3)),
        "mha 4d mask": lambda t: _mha(t, attn_mask=(2, 2, 3, 3)),
        "mha unbatched 3d mask": lambda t: _mha(t, (3, 8), (3, 8), attn_mask=(4, 3, 3)),
        "mha padding batch": lambda t: _mha(t, key_padding_mask=(3, 3)),
        "mha padding source": lambda t: _mha(t, key_padding_mask=(2, 4)),
        "mha padding dims": lambda t: _mha(t, key_padding_mask=(2, 3, 1)),
        "mha key dims": lambda t: _mha(t, key=(3, 8)),
        "mha query dims": lambda t: _mha(t, query=(1, 3, 2, 8)),
    }
)


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(case, torch):
    raised = []
    for lib in (torch, dyngrad):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception) as info:
                ERRORS[case](lib)
        raised.append((type(info.value), str(info.value).splitlines()[0]))
    assert raised[1] == raised[0]


@pytest.mark.parametrize("dtype", [None, "float64", "bool"])
def test_generate_square_subsequent_mask_matches_torch(dtype, torch):
    theirs = torch.nn.Transformer.generate_square_subsequent_mask(
        4, dtype=None if dtype is None else getattr(torch, dtype)
    )
    ours = dyngrad.nn.Transformer.generate_square_subsequent_mask(
        4, dtype=None if dtype is None else getattr(dyngrad, dtype)
    )
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def word_language_model(lib):
    """The pattern of PyTorch's word-level language model example: subclass nn.Transformer."""
    nn = lib.nn

    class TransformerModel(nn.Transformer):
        def __init__(self, ntoken, ninp, nhead, nhid, nlayers):
            super().__init__(
                d_model=ninp, nhead=nhead, dim_feedforward=nhid, num_encoder_layers=nlayers
            )
            self.src_mask = None
            self.input_emb = nn.Embedding(ntoken, ninp)
            self.ninp = ninp
            self.decoder = nn.Linear(ninp, ntoken)

        def forward(self, src):
            if self.src_mask is None or self.src_mask.size(0) != len(src):
                self.src_mask = lib.log(lib.tril(lib.ones(len(src), len(src))))
            src = self.input_emb(src) * math.sqrt(self.ninp)
            output = self.encoder(src, mask=self.src_mask.double())
            return nn.functional.log_softmax(self.decoder(output), dim=-1)

    return TransformerModel(ntoken=11, ninp=8, nhead=2, nhid=16, nlayers=2)


def test_word_language_model_subclass_matches_torch(torch):
    def make(nn):
        lib = torch if nn is torch.nn else dyngrad
        model = quiet(lambda _: word_language_model(lib))(nn)
        model.encoder.layers[0].dropout.p = 0.0  # the rest stays at 0.1: eval below
        return model.eval()

    pair = twins(torch, make)
    assert "decoder.weight" in pair[1].state_dict()
    assert not any(k.startswith("decoder.layers") for k in pair[1].state_dict())
    tokens = R.integers(0, 11, (6, 2))
    out = assert_same(torch, pair, [tokens])
    assert out[0].grad_fn.name() == "LogSoftmaxBackward0"


def test_padded_eval_batch_warns_once_as_torchs_nested_tensor_path(monkeypatch):
    from dyngrad.runtime import warn_always

    monkeypatch.setattr(warn_always, "_warned", set())
    layer = dyngrad.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
    encoder = dyngrad.nn.TransformerEncoder(layer, 1).eval()
    padding = dyngrad.tensor([[False] * 5, [False, False, False, True, True]])
    with warnings.catch_warnings(record=True) as caught, dyngrad.no_grad():
        warnings.simplefilter("always")
        for _ in range(2):
            out = encoder(dyngrad.randn(2, 5, 8), src_key_padding_mask=padding)
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1 and messages[0].startswith(
        "The PyTorch API of nested tensors is in prototype stage"
    )
    assert bool((out[1, 3:] == 0).all())
