"""nn.init: bounds, moments and shapes of PyTorch's initialisations (statistical checks)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import dyngrad
from dyngrad import nn
from dyngrad.nn import init


def _values(t):
    return t.detach().numpy().astype(np.float64).ravel()


def test_calculate_gain_matches_torch(torch):
    for args in [
        ("linear",),
        ("conv2d",),
        ("sigmoid",),
        ("tanh",),
        ("relu",),
        ("leaky_relu",),
        ("leaky_relu", 0.2),
        ("selu",),
    ]:
        assert init.calculate_gain(*args) == torch.nn.init.calculate_gain(*args)
    for bad in [("foo",), ("leaky_relu", "x")]:
        with pytest.raises(ValueError) as ours:
            init.calculate_gain(*bad)
        with pytest.raises(ValueError) as theirs:
            torch.nn.init.calculate_gain(*bad)
        assert str(ours.value) == str(theirs.value)


def test_fan_in_and_fan_out(torch):
    for shape in [(5, 3), (8, 4, 3, 3), (2, 6, 5)]:
        assert init._calculate_fan_in_and_fan_out(
            dyngrad.empty(*shape)
        ) == torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape))
    with pytest.raises(
        ValueError,
        match="Fan in and fan out can not be computed for tensor with fewer than 2 dimensions",
    ):
        init._calculate_fan_in_and_fan_out(dyngrad.empty(3))


def test_linear_default_init_is_uniform_in_one_over_sqrt_fan_in():
    layer = nn.Linear(400, 300)
    bound = 1 / math.sqrt(400)
    w, b = _values(layer.weight), _values(layer.bias)
    assert w.min() >= -bound and w.max() <= bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.02 * bound
    assert b.min() >= -bound and b.max() <= bound and b.std() > 0.4 * bound


def test_conv_default_init_bounds():
    conv = nn.Conv2d(8, 16, 3)
    bound = 1 / math.sqrt(8 * 9)
    w = _values(conv.weight)
    assert w.min() >= -bound and w.max() <= bound and w.max() > 0.9 * bound


@pytest.mark.parametrize(
    "fn,kwargs,std",
    [
        (init.kaiming_normal_, {"nonlinearity": "relu"}, math.sqrt(2 / 250)),
        (init.kaiming_normal_, {"mode": "fan_out"}, math.sqrt(2 / (1 + 0)) / math.sqrt(400)),
        (init.xavier_normal_, {"gain": 2.0}, 2.0 * math.sqrt(2 / 650)),
        (init.normal_, {"mean": 0.0, "std": 0.3}, 0.3),
    ],
)
def test_normal_initialisations_have_the_right_std(fn, kwargs, std):
    w = dyngrad.empty(400, 250)
    fn(w, **kwargs)
    values = _values(w)
    assert abs(values.std() - std) < 0.02 * std
    assert abs(values.mean()) < 0.02 * std


@pytest.mark.parametrize(
    "fn,kwargs,bound",
    [
        (init.kaiming_uniform_, {"a": math.sqrt(5)}, 1 / math.sqrt(250)),
        (init.kaiming_uniform_, {"nonlinearity": "relu"}, math.sqrt(6 / 250)),
        (init.xavier_uniform_, {}, math.sqrt(6 / 650)),
        (init.uniform_, {"a": -0.2, "b": 0.5}, None),
    ],
)
def test_uniform_initialisations_fill_their_bounds(fn, kwargs, bound):
    w = dyngrad.empty(400, 250)
    fn(w, **kwargs)
    values = _values(w)
    low, high = (-bound, bound) if bound is not None else (kwargs["a"], kwargs["b"])
    assert values.min() >= low and values.max() <= high
    assert values.min() < low + 0.01 * (high - low) and values.max() > high - 0.01 * (high - low)
    assert abs(values.mean() - (low + high) / 2) < 0.01 * (high - low)


def test_trunc_normal_stays_in_bounds():
    w = init.trunc_normal_(dyngrad.empty(200, 100), mean=1.0, std=2.0, a=-1.0, b=2.0)
    values = _values(w)
    assert values.min() >= -1.0 and values.max() <= 2.0 and values.std() > 0.5


def test_orthogonal_gives_orthonormal_rows_and_columns():
    wide = init.orthogonal_(dyngrad.empty(3, 7), gain=2.0).numpy().astype(np.float64)
    np.testing.assert_allclose(wide @ wide.T, 4 * np.eye(3), atol=1e-5)
    tall = init.orthogonal_(dyngrad.empty(6, 2, 2)).numpy().reshape(6, 4).astype(np.float64)
    np.testing.assert_allclose(tall.T @ tall, np.eye(4), atol=1e-5)
    with pytest.raises(ValueError, match="Only tensors with 2 or more dimensions are supported"):
        init.orthogonal_(dyngrad.empty(3))


def test_constant_and_special_initialisations():
    assert (init.constant_(dyngrad.empty(2, 2), 0.5).numpy() == 0.5).all()
    assert (init.ones_(dyngrad.empty(2)).numpy() == 1).all()
    assert (init.zeros_(dyngrad.ones(2)).numpy() == 0).all()
    np.testing.assert_array_equal(init.eye_(dyngrad.empty(2, 3)).numpy(), np.eye(2, 3))
    dirac = init.dirac_(dyngrad.empty(2, 2, 3, 3)).numpy()
    assert dirac[0, 0, 1, 1] == 1 and dirac[1, 1, 1, 1] == 1 and dirac.sum() == 2
    sparse = init.sparse_(dyngrad.empty(10, 4), 0.3).numpy()
    assert ((sparse == 0).sum(0) >= 3).all()


def test_init_writes_in_place_without_grad_and_is_seeded():
    w = nn.Parameter(dyngrad.empty(3, 3))
    version = w._version
    dyngrad.manual_seed(5)
    out = init.normal_(w)
    assert out is w and w.requires_grad and w.grad_fn is None and w._version > version
    first = w.detach().numpy().copy()
    dyngrad.manual_seed(5)
    init.normal_(w)
    np.testing.assert_array_equal(first, w.detach().numpy())


def test_zero_element_kaiming_warns():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        init.kaiming_uniform_(dyngrad.empty(0, 3))
    assert "Initializing zero-element tensors is a no-op" in str(caught[0].message)


def test_embedding_padding_row_is_zero():
    emb = nn.Embedding(5, 3, padding_idx=1)
    assert not emb.weight.detach().numpy()[1].any()
    assert abs(_values(nn.Embedding(500, 100).weight).std() - 1.0) < 0.02


DEPRECATED = [
    ("uniform", (-0.5, 0.5)),
    ("normal", (0.0, 2.0)),
    ("constant", (0.3,)),
    ("eye", ()),
    ("dirac", ()),
    ("xavier_uniform", (0.5,)),
    ("xavier_normal", ()),
    ("kaiming_uniform", ()),
    ("kaiming_normal", (0.1, "fan_out")),
    ("orthogonal", ()),
    ("sparse", (0.5,)),
]


@pytest.mark.parametrize("name,args", DEPRECATED, ids=[n for n, _ in DEPRECATED])
def test_deprecated_init_aliases_warn_and_fill_as_the_new_names(name, args, lib):
    shape = (4, 3, 3) if name == "dirac" else (4, 6)
    lib.manual_seed(5)
    expected = getattr(lib.nn.init, name + "_")(lib.empty(shape), *args)
    lib.manual_seed(5)
    with pytest.warns(FutureWarning) as caught:
        got = getattr(lib.nn.init, name)(lib.empty(shape), *args)
    assert str(caught[0].message) == (
        f"`nn.init.{name}` is now deprecated in favor of `nn.init.{name}_`."
    )
    assert caught[0].filename == __file__
    assert getattr(lib.nn.init, name).__name__ == name
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


@pytest.mark.parametrize("name", ["uniform", "normal", "xavier_normal", "kaiming_uniform"])
def test_deprecated_init_aliases_draw_torch_values(name, torch):
    values = []
    for lib in (dyngrad, torch):
        lib.manual_seed(11)
        with pytest.warns(FutureWarning):
            values.append(getattr(lib.nn.init, name)(lib.empty(5, 4)).numpy())
    np.testing.assert_allclose(values[0], values[1], rtol=1e-6)
