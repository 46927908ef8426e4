"""torch.nn.utils.parametrize and parametrizations.{orthogonal, weight_norm}: the generated
class, state_dict keys, values and gradients against torch from the same weights."""

from __future__ import annotations

import copy
import importlib
import pickle

import numpy as np
import pytest

import dyngrad
from dyngrad.nn.utils import parametrizations
from dyngrad.nn.utils import parametrize as P

from .parity import assert_same


def _parametrize(lib):
    return importlib.import_module(lib.__name__ + ".nn.utils.parametrize")


def _parametrizations(lib):
    return importlib.import_module(lib.__name__ + ".nn.utils.parametrizations")


def _symmetric(nn):
    class Symmetric(nn.Module):
        def forward(self, X):  # noqa: N803
            return X.triu() + X.triu(1).mT

        def right_inverse(self, A):  # noqa: N803
            return A.triu()

    return Symmetric()


def _scale(nn, factor=2.0):
    class Scale(nn.Module):
        def forward(self, x):
            return x * factor

        def right_inverse(self, x):
            return x / factor

    return Scale()


def _split(nn):
    class Split(nn.Module):  # weight = a + b, from two originals
        def forward(self, a, b):
            return a + b

        def right_inverse(self, x):
            return x * 0.25, x * 0.75

    return Split()


def _pair(torch, make):
    """The same module built in torch and in dyngrad from the same seed, then `make`'s
    parametrizations registered on each (float64)."""
    made = []
    for lib in (torch, dyngrad):
        lib.manual_seed(0)
        made.append(make(lib, lib.nn.Linear(4, 4).double()))
    return made


def _x(shape=(3, 4)):
    return np.random.default_rng(1).standard_normal(shape)


def _to_dyngrad(state):
    return {k: dyngrad.tensor(v.detach().numpy().copy()) for k, v in state.items()}


def _to_torch(torch, state):
    return {k: torch.from_numpy(v.detach().numpy().copy()) for k, v in state.items()}


# ---- register_parametrization --------------------------------------------------------------


def test_parametrized_class_keys_values_and_grads_match_torch(torch):
    def make(lib, m):
        return _parametrize(lib).register_parametrization(m, "weight", _symmetric(lib.nn))

    theirs, ours = _pair(torch, make)
    assert type(ours).__name__ == "ParametrizedLinear"
    assert P.type_before_parametrizations(ours) is dyngrad.nn.Linear
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert list(ours.state_dict()) == ["bias", "parametrizations.weight.original"]
    assert isinstance(ours.parametrizations.weight.original, dyngrad.nn.Parameter)
    assert ours.weight.grad_fn.name() == theirs.weight.grad_fn.name() == "AddBackward0"
    np.testing.assert_allclose(ours.weight.detach().numpy(), ours.weight.detach().numpy().T)
    assert_same(torch, (theirs, ours), [_x()])


def test_state_dict_loads_from_torch_and_back(torch):
    def make(lib, m):
        return _parametrize(lib).register_parametrization(m, "weight", _symmetric(lib.nn))

    theirs, ours = _pair(torch, make)
    with torch.no_grad():
        theirs.parametrizations.weight.original.mul_(3.0)
    ours.load_state_dict(_to_dyngrad(theirs.state_dict()))
    np.testing.assert_array_equal(ours.weight.detach().numpy(), theirs.weight.detach().numpy())
    with dyngrad.no_grad():
        ours.parametrizations.weight.original.add_(1.0)
    theirs.load_state_dict(_to_torch(torch, ours.state_dict()))
    np.testing.assert_array_equal(ours.weight.detach().numpy(), theirs.weight.detach().numpy())


def test_assignment_runs_right_inverse_and_keeps_the_parameter(torch):
    def make(lib, m):
        return _parametrize(lib).register_parametrization(m, "weight", _symmetric(lib.nn))

    theirs, ours = _pair(torch, make)
    original = ours.parametrizations.weight.original
    a = _x((4, 4))
    theirs.weight = torch.from_numpy(a.copy())
    ours.weight = dyngrad.from_numpy(a.copy())
    assert ours.parametrizations.weight.original is original
    np.testing.assert_array_equal(original.detach().numpy(), np.triu(a))
    np.testing.assert_array_equal(ours.weight.detach().numpy(), theirs.weight.detach().numpy())


def test_chained_parametrizations_apply_in_order(torch):
    def make(lib, m):
        p = _parametrize(lib)
        p.register_parametrization(m, "weight", _symmetric(lib.nn))
        return p.register_parametrization(m, "weight", _scale(lib.nn, 3.0))

    theirs, ours = _pair(torch, make)
    assert len(ours.parametrizations.weight) == 2
    assert ours.weight.grad_fn.name() == theirs.weight.grad_fn.name() == "MulBackward0"
    assert_same(torch, (theirs, ours), [_x()])
    ours.weight = dyngrad.ones(4, 4, dtype=dyngrad.float64)  # right inverses, last first
    np.testing.assert_allclose(
        ours.parametrizations.weight.original.detach().numpy(), np.triu(1 / 3 * np.ones((4, 4)))
    )


def test_right_inverse_tuple_gives_original0_original1(torch):
    def make(lib, m):
        return _parametrize(lib).register_parametrization(m, "weight", _split(lib.nn))

    theirs, ours = _pair(torch, make)
    keys = ["bias", "parametrizations.weight.original0", "parametrizations.weight.original1"]
    assert list(ours.state_dict()) == list(theirs.state_dict()) == keys
    assert all(
        isinstance(p, dyngrad.nn.Parameter) for p in ours.parametrizations.weight.parameters()
    )
    assert_same(torch, (theirs, ours), [_x()])
    ours.weight = dyngrad.ones(4, 4, dtype=dyngrad.float64)
    np.testing.assert_array_equal(
        ours.parametrizations.weight.original1.detach().numpy(), np.full((4, 4), 0.75)
    )


def test_parametrized_buffer_stays_a_buffer(torch):
    made = []
    for lib in (torch, dyngrad):
        bn = lib.nn.BatchNorm1d(3)
        _parametrize(lib).register_parametrization(bn, "running_var", _scale(lib.nn))
        made.append(bn)
    theirs, ours = made
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert "parametrizations.running_var.original" in dict(ours.named_buffers())
    # right_inverse halves the ones at registration; forward doubles them back
    np.testing.assert_array_equal(ours.running_var.numpy(), theirs.running_var.numpy())
    np.testing.assert_array_equal(ours.parametrizations.running_var.original.numpy(), [0.5] * 3)
    P.remove_parametrizations(ours, "running_var")
    assert type(ours) is dyngrad.nn.BatchNorm1d
    assert list(ours.state_dict())[-1] == "running_var"


def test_functional_call_through_the_parametrization_passes_gradcheck():
    m = P.register_parametrization(
        dyngrad.nn.Linear(3, 3).double(), "weight", _symmetric(dyngrad.nn)
    )
    x = dyngrad.randn(2, 3, dtype=dyngrad.float64)
    w = dyngrad.randn(3, 3, dtype=dyngrad.float64, requires_grad=True)
    key = "parametrizations.weight.original"
    assert dyngrad.autograd.gradcheck(
        lambda w: dyngrad.func.functional_call(m, {key: w}, (x,)), (w,)
    )


# ---- remove_parametrizations, cached, transfer --------------------------------------------


@pytest.mark.parametrize("leave", [True, False])
def test_remove_parametrizations_values_match_torch(torch, leave):
    def make(lib, m):
        return _parametrize(lib).register_parametrization(m, "weight", _symmetric(lib.nn))

    theirs, ours = _pair(torch, make)
    original = ours.parametrizations.weight.original
    expected = (ours.weight if leave else original).detach().numpy().copy()
    _parametrize(torch).remove_parametrizations(theirs, "weight", leave_parametrized=leave)
    P.remove_parametrizations(ours, "weight", leave_parametrized=leave)
    assert type(ours) is dyngrad.nn.Linear and "parametrizations" not in ours._modules
    assert ours.weight is original  # the optimizer's parameter is still the module's
    np.testing.assert_array_equal(ours.weight.detach().numpy(), expected)
    np.testing.assert_array_equal(ours.weight.detach().numpy(), theirs.weight.detach().numpy())
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["bias", "weight"]


def test_remove_sequence_parametrization_gives_a_new_parameter():
    m = dyngrad.nn.Linear(2, 2)
    P.register_parametrization(m, "weight", _split(dyngrad.nn))
    value = m.weight.detach().numpy().copy()
    with pytest.raises(
        ValueError, match=r"^Cannot leave unparametrized \(`leave_parametrized=False`\)"
    ):
        P.remove_parametrizations(m, "weight", leave_parametrized=False)
    P.remove_parametrizations(m, "weight")
    assert isinstance(m.weight, dyngrad.nn.Parameter) and m.weight.grad_fn is None
    np.testing.assert_array_equal(m.weight.detach().numpy(), value)


def test_cached_computes_each_tensor_once():
    calls = []

    class Counted(dyngrad.nn.Module):
        def forward(self, x):
            calls.append(1)
            return x * 1

    m = P.register_parametrization(dyngrad.nn.Linear(2, 2), "weight", Counted())
    calls.clear()
    with P.cached():
        assert m.weight is m.weight
        with P.cached():
            m.weight
    assert len(calls) == 1
    assert m.weight is not m.weight and len(calls) == 3


def test_registration_matches_the_module_training_mode():
    m = dyngrad.nn.Linear(2, 2).eval()
    p = _scale(dyngrad.nn)
    P.register_parametrization(m, "weight", p)
    assert p.training is False


def test_transfer_shares_parametrizations_and_originals():
    source, target = dyngrad.nn.Linear(2, 2), dyngrad.nn.Linear(2, 2)
    P.register_parametrization(source, "weight", _scale(dyngrad.nn))
    P.transfer_parametrizations_and_params(source, target)
    assert type(target).__name__ == "ParametrizedLinear"
    assert target.parametrizations.weight[0] is source.parametrizations.weight[0]
    assert target.parametrizations.weight.original is source.parametrizations.weight.original
    np.testing.assert_array_equal(target.weight.detach().numpy(), source.weight.detach().numpy())


def test_deepcopy_works_and_pickling_refuses():
    m = P.register_parametrization(dyngrad.nn.Linear(2, 2), "weight", _scale(dyngrad.nn))
    twin = copy.deepcopy(m)
    assert type(twin) is type(m)
    assert twin.parametrizations.weight.original is not m.parametrizations.weight.original
    np.testing.assert_array_equal(twin.weight.detach().numpy(), m.weight.detach().numpy())
    with pytest.raises(
        RuntimeError, match=r"^Serialization of parametrized modules is only supported"
    ):
        pickle.dumps(m)


# ---- misuse: PyTorch's errors --------------------------------------------------------------


def _message(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the type is compared too
        return type(exc).__name__, str(exc).split("\n")[0]
    return None


def _misuses(lib):
    p, nn = _parametrize(lib), lib.nn

    class Grow(nn.Module):
        def forward(self, x):
            return lib.cat([x, x])

    class ToFloat(nn.Module):
        def forward(self, x):
            return x.float()

    class NoInverse(nn.Module):
        def forward(self, x):
            return x * 2

    def registered(cls):
        return p.register_parametrization(nn.Linear(3, 3), "weight", cls())

    return [
        lambda: p.register_parametrization(nn.Linear(3, 3), "foo", NoInverse()),
        lambda: registered(Grow),
        lambda: p.register_parametrization(nn.Linear(3, 3).double(), "weight", ToFloat()),
        lambda: p.register_parametrization(registered(NoInverse), "weight", Grow()),
        lambda: setattr(registered(NoInverse), "weight", lib.zeros(3, 3)),
        lambda: setattr(registered(NoInverse), "weight", nn.Parameter(lib.zeros(3, 3))),
        lambda: p.remove_parametrizations(nn.Linear(3, 3), "weight"),
        lambda: p.ParametrizationList([], lib.zeros(2)),
    ]


def test_misuse_raises_torchs_errors(torch):
    for ours, theirs in zip(_misuses(dyngrad), _misuses(torch)):
        expected = _message(theirs)
        assert expected is not None
        assert _message(ours) == expected


def test_unsafe_allows_a_dtype_change():
    class ToFloat(dyngrad.nn.Module):
        def forward(self, x):
            return x.float()

    m = dyngrad.nn.Linear(2, 2).double()
    P.register_parametrization(m, "weight", ToFloat(), unsafe=True)
    assert m.weight.dtype == dyngrad.float32 and m.parametrizations.weight.unsafe


# ---- parametrizations.orthogonal -----------------------------------------------------------

_ORTHOGONAL_CASES = [
    # (in_features, out_features, orthogonal_map, use_trivialization)
    (4, 4, None, True),
    (3, 5, None, True),
    (5, 3, None, True),
    (4, 4, "cayley", True),
    (3, 5, "cayley", True),
    (3, 5, "householder", True),
    (3, 5, "householder", False),
    (5, 3, "householder", False),
    (4, 4, "matrix_exp", False),
]


@pytest.mark.parametrize("n_in, n_out, kind, trivial", _ORTHOGONAL_CASES)
def test_orthogonal_matches_torch(torch, n_in, n_out, kind, trivial):
    made = []
    for lib in (torch, dyngrad):
        lib.manual_seed(0)  # the non-square trivialization draws its completion
        m = lib.nn.Linear(n_in, n_out).double()
        made.append(
            _parametrizations(lib).orthogonal(m, orthogonal_map=kind, use_trivialization=trivial)
        )
    theirs, ours = made
    assert ours.parametrizations.weight[0].orthogonal_map.name == (
        theirs.parametrizations.weight[0].orthogonal_map.name
    )
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert ours.weight.grad_fn.name() == theirs.weight.grad_fn.name()
    w = ours.weight.detach().numpy()
    small = min(w.shape)
    np.testing.assert_allclose(
        w @ w.T if w.shape[0] == small else w.T @ w, np.eye(small), atol=1e-12
    )
    np.testing.assert_allclose(w, theirs.weight.detach().numpy(), rtol=1e-10, atol=1e-12)
    assert_same(torch, (theirs, ours), [_x((2, n_in))], rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("kind", ["matrix_exp", "cayley", "householder"])
def test_orthogonal_maps_pass_gradcheck(kind):
    dyngrad.manual_seed(0)
    m = parametrizations.orthogonal(dyngrad.nn.Linear(3, 4).double(), orthogonal_map=kind)
    orth = m.parametrizations.weight[0]
    x = (0.3 * dyngrad.randn(4, 3, dtype=dyngrad.float64)).requires_grad_()
    assert dyngrad.autograd.gradcheck(orth, (x,))


def test_orthogonal_assignment_matches_torch(torch):
    q = np.linalg.qr(np.random.default_rng(2).standard_normal((5, 3)))[0]
    made = []
    for lib in (torch, dyngrad):
        lib.manual_seed(0)
        m = _parametrizations(lib).orthogonal(lib.nn.Linear(3, 5).double())
        m.weight = lib.from_numpy(q.copy())
        made.append(m)
    theirs, ours = made
    np.testing.assert_allclose(ours.weight.detach().numpy(), q, atol=1e-12)
    np.testing.assert_allclose(
        ours.parametrizations.weight[0].base.numpy(),
        theirs.parametrizations.weight[0].base.numpy(),
        atol=1e-12,
    )


def test_orthogonal_misuse_raises_torchs_errors(torch):
    def misuses(lib):
        orth = _parametrizations(lib).orthogonal
        m = orth(lib.nn.Linear(3, 3), orthogonal_map="cayley", use_trivialization=False)
        return [
            lambda: orth(lib.nn.Linear(3, 3), name="foo"),
            lambda: orth(lib.nn.Linear(3, 3), name="bias"),
            lambda: orth(lib.nn.Linear(3, 3), orthogonal_map="qr"),
            lambda: setattr(m, "weight", lib.eye(3)),
            lambda: setattr(m, "weight", lib.eye(2)),
        ]

    for ours, theirs in zip(misuses(dyngrad), misuses(torch)):
        expected = _message(theirs)
        assert expected is not None
        assert _message(ours) == expected


# ---- parametrizations.weight_norm ----------------------------------------------------------


@pytest.mark.parametrize(
    "dim, node",
    [
        (0, "WeightNormInterfaceBackward0"),
        (1, "WeightNormInterfaceBackward0"),
        (None, "MulBackward0"),
    ],
)
def test_weight_norm_matches_torch(torch, dim, node):
    def make(lib, m):
        return _parametrizations(lib).weight_norm(m, dim=dim)

    theirs, ours = _pair(torch, make)
    keys = ["bias", "parametrizations.weight.original0", "parametrizations.weight.original1"]
    assert list(ours.state_dict()) == list(theirs.state_dict()) == keys
    assert ours.weight.grad_fn.name() == theirs.weight.grad_fn.name() == node
    assert_same(torch, (theirs, ours), [_x()])
    g, v = (getattr(ours.parametrizations.weight, n) for n in ("original0", "original1"))
    assert dyngrad.autograd.gradcheck(
        ours.parametrizations.weight[0], (g.detach().requires_grad_(), v.detach().requires_grad_())
    )


def test_weight_norm_loads_an_old_weight_norm_checkpoint(torch):
    torch.manual_seed(0)
    with pytest.warns(FutureWarning, match="is deprecated"):
        old = torch.nn.utils.weight_norm(torch.nn.Linear(4, 3).double())
    with torch.no_grad():
        old.weight_g.mul_(2.0)
    ours = parametrizations.weight_norm(dyngrad.nn.Linear(4, 3).double())
    ours.load_state_dict(_to_dyngrad(old.state_dict()))
    old(torch.zeros(1, 4, dtype=torch.float64))  # the old hook recomputes weight in forward
    np.testing.assert_allclose(
        ours.weight.detach().numpy(), old.weight.detach().numpy(), rtol=1e-12
    )
    value = ours.weight.detach().numpy().copy()
    P.remove_parametrizations(ours, "weight")
    assert type(ours) is dyngrad.nn.Linear and isinstance(ours.weight, dyngrad.nn.Parameter)
    np.testing.assert_array_equal(ours.weight.detach().numpy(), value)
