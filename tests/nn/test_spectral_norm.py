"""Spectral normalisation, the parametrization (`parametrizations.spectral_norm`) and the old
hook (`nn.utils.spectral_norm`): the same seed gives torch's u, v, outputs and gradients."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad
from dyngrad.nn.utils import parametrizations
from dyngrad.nn.utils import parametrize as P


def _x(shape):
    return np.random.default_rng(1).standard_normal(shape)


def _build(torch, make, seed=3):
    made = []
    for lib in (torch, dyngrad):
        lib.manual_seed(seed)
        made.append(make(lib))
    return made


def _run(lib, m, x, calls=3):
    """`calls` training-mode forwards, one eval-mode forward, backward of their sum."""
    inputs = lib.from_numpy(x.copy())
    outs = [m(inputs) for _ in range(calls)]
    m.eval()
    outs.append(m(inputs))
    m.train()
    sum(o.sum() for o in outs).backward()
    return [o.detach().numpy() for o in outs]


def _assert_close(ours, theirs, rtol=1e-10, atol=1e-12):
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def _to_dyngrad(state):
    return {k: dyngrad.tensor(v.detach().numpy().copy()) for k, v in state.items()}


def _message(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the type is compared too
        return type(exc).__name__, str(exc).split("\n")[0]
    return None


# ---- parametrizations.spectral_norm --------------------------------------------------------

_MODULES = [
    (lambda nn: nn.Linear(3, 4), (2, 3)),
    (lambda nn: nn.Conv2d(2, 3, 3), (1, 2, 5, 5)),
    (lambda nn: nn.ConvTranspose2d(2, 3, 3), (1, 2, 4, 4)),  # dim=1 by default
]


@pytest.mark.parametrize("layer, shape", _MODULES)
def test_parametrized_spectral_norm_matches_torch_over_training_calls(torch, layer, shape):
    def make(lib):
        return lib.nn.utils.parametrizations.spectral_norm(layer(lib.nn).double())

    theirs, ours = _build(torch, make)
    norm = ours.parametrizations.weight[0]
    keys = ["bias", "parametrizations.weight.original"]
    keys += ["parametrizations.weight.0._u", "parametrizations.weight.0._v"]
    assert list(ours.state_dict()) == list(theirs.state_dict()) == keys
    assert norm.dim == theirs.parametrizations.weight[0].dim
    _assert_close(
        [norm._u.numpy(), norm._v.numpy()], [theirs.state_dict()[k].numpy() for k in keys[2:]]
    )
    assert ours.weight.grad_fn.name() == theirs.weight.grad_fn.name() == "DivBackward0"
    _assert_close(_run(dyngrad, ours, _x(shape)), _run(torch, theirs, _x(shape)))
    _assert_close([norm._u.numpy()], [theirs.parametrizations.weight[0]._u.numpy()])
    original = "parametrizations.weight.original"
    _assert_close(
        [ours.get_parameter(original).grad.numpy()], [theirs.get_parameter(original).grad.numpy()]
    )


def test_parametrized_spectral_norm_continues_from_torchs_state_dict(torch):
    def make(lib):
        return lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(3, 4).double())

    theirs, _ = _build(torch, make, seed=5)
    _, ours = _build(torch, make, seed=6)  # other u, v until the load
    theirs(torch.zeros(1, 3, dtype=torch.float64))
    ours.load_state_dict(_to_dyngrad(theirs.state_dict()))
    _assert_close(_run(dyngrad, ours, _x((2, 3))), _run(torch, theirs, _x((2, 3))))


def test_parametrized_spectral_norm_sigma_is_the_largest_singular_value():
    dyngrad.manual_seed(0)
    m = parametrizations.spectral_norm(dyngrad.nn.Linear(5, 4).double(), n_power_iterations=50)
    assert np.linalg.svd(m.weight.detach().numpy(), compute_uv=False)[0] == pytest.approx(1.0)
    m.eval()
    weight = m.weight.detach().numpy()
    np.testing.assert_array_equal(m.weight.detach().numpy(), weight)  # eval: u, v fixed


def test_parametrized_spectral_norm_of_a_vector_normalises_it(torch):
    made = []
    for lib in (torch, dyngrad):
        m = lib.nn.Module()
        m.register_parameter("weight", lib.nn.Parameter(lib.from_numpy(_x(5))))
        made.append(lib.nn.utils.parametrizations.spectral_norm(m))
    theirs, ours = made
    assert (
        list(ours.state_dict()) == list(theirs.state_dict()) == ["parametrizations.weight.original"]
    )
    np.testing.assert_allclose(
        ours.weight.detach().numpy(), _x(5) / np.linalg.norm(_x(5)), rtol=1e-12
    )


def test_parametrized_spectral_norm_passes_gradcheck_in_eval_mode():
    dyngrad.manual_seed(0)
    m = parametrizations.spectral_norm(dyngrad.nn.Conv2d(2, 3, 2).double()).eval()
    norm = m.parametrizations.weight[0]
    w = dyngrad.randn(3, 2, 2, 2, dtype=dyngrad.float64, requires_grad=True)
    assert dyngrad.autograd.gradcheck(norm, (w,))


def test_parametrized_spectral_norm_misuse_raises_torchs_errors(torch):
    def misuses(lib):
        sn = lib.nn.utils.parametrizations.spectral_norm
        return [
            lambda: sn(lib.nn.Linear(3, 4), name="foo"),
            lambda: sn(lib.nn.Linear(3, 4), dim=2),
            lambda: sn(lib.nn.Linear(3, 4), n_power_iterations=0),
        ]

    for ours, theirs in zip(misuses(dyngrad), misuses(torch)):
        expected = _message(theirs)
        assert expected is not None
        assert _message(ours) == expected


def test_removing_the_parametrized_spectral_norm_keeps_the_normalised_weight():
    dyngrad.manual_seed(0)
    m = parametrizations.spectral_norm(dyngrad.nn.Linear(3, 4))
    m.eval()
    value = m.weight.detach().numpy().copy()
    P.remove_parametrizations(m, "weight")
    assert list(m.state_dict()) == ["bias", "weight"]
    np.testing.assert_array_equal(m.weight.detach().numpy(), value)


# ---- the old hook-based spectral_norm ------------------------------------------------------


@pytest.mark.parametrize("layer, shape", _MODULES)
def test_hook_spectral_norm_matches_torch_over_training_calls(torch, layer, shape):
    def make(lib):
        return lib.nn.utils.spectral_norm(layer(lib.nn).double())

    theirs, ours = _build(torch, make)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert list(ours.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    assert type(ours.weight) is dyngrad.Tensor and "weight" not in ours._parameters
    _assert_close([ours.weight_u.numpy()], [theirs.weight_u.numpy()])
    _assert_close(_run(dyngrad, ours, _x(shape)), _run(torch, theirs, _x(shape)))
    assert ours.weight.grad_fn.name() == theirs.weight.grad_fn.name() == "DivBackward0"
    _assert_close(
        [ours.weight_u.numpy(), ours.weight_v.numpy(), ours.weight_orig.grad.numpy()],
        [theirs.weight_u.numpy(), theirs.weight_v.numpy(), theirs.weight_orig.grad.numpy()],
    )


def test_hook_spectral_norm_loads_torchs_state_dict(torch):
    def make(lib):
        return lib.nn.utils.spectral_norm(lib.nn.Linear(3, 4).double())

    theirs, _ = _build(torch, make, seed=5)
    _, ours = _build(torch, make, seed=6)
    theirs(torch.zeros(1, 3, dtype=torch.float64))
    ours.load_state_dict(_to_dyngrad(theirs.state_dict()))
    _assert_close(_run(dyngrad, ours, _x((2, 3))), _run(torch, theirs, _x((2, 3))))


def test_hook_spectral_norm_converts_a_checkpoint_from_before_version_1(torch):
    # version 0 saved `weight` and no `weight_v`; loading solves for a consistent v
    torch.manual_seed(0)
    old = torch.nn.utils.spectral_norm(torch.nn.Linear(3, 4).double())
    old(torch.zeros(1, 3, dtype=torch.float64))
    state = {k: v for k, v in old.state_dict().items() if k != "weight_v"}
    state["weight"] = old.weight.detach()
    new = [torch.nn.utils.spectral_norm(torch.nn.Linear(3, 4).double())]
    new.append(dyngrad.nn.utils.spectral_norm(dyngrad.nn.Linear(3, 4).double()))
    new[0].load_state_dict(state)
    new[1].load_state_dict(_to_dyngrad(state))
    np.testing.assert_allclose(new[1].weight_v.numpy(), new[0].weight_v.numpy(), rtol=1e-10)


def test_hook_spectral_norm_passes_gradcheck_in_eval_mode():
    dyngrad.manual_seed(0)
    m = dyngrad.nn.utils.spectral_norm(dyngrad.nn.Linear(3, 4).double()).eval()
    x = dyngrad.randn(2, 3, dtype=dyngrad.float64)
    w = dyngrad.randn(4, 3, dtype=dyngrad.float64, requires_grad=True)
    call = dyngrad.func.functional_call
    assert dyngrad.autograd.gradcheck(lambda w: call(m, {"weight_orig": w}, (x,)), (w,))


def test_remove_spectral_norm_restores_a_parameter_and_drops_the_hooks(torch):
    def make(lib):
        return lib.nn.utils.spectral_norm(lib.nn.Linear(3, 4).double())

    theirs, ours = _build(torch, make)
    _run(torch, theirs, _x((2, 3)))
    _run(dyngrad, ours, _x((2, 3)))
    torch.nn.utils.remove_spectral_norm(theirs)
    dyngrad.nn.utils.remove_spectral_norm(ours)
    assert isinstance(ours.weight, dyngrad.nn.Parameter)
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["bias", "weight"]
    np.testing.assert_allclose(
        ours.weight.detach().numpy(), theirs.weight.detach().numpy(), rtol=1e-10
    )
    assert not ours._forward_pre_hooks and not ours._state_dict_hooks
    # PyTorch means to drop the load hook too, but misses it (it wraps the hook it stores), so
    # its module refuses its own state_dict afterwards; dyngrad drops it
    assert not ours._load_state_dict_pre_hooks
    assert str(ours.load_state_dict(ours.state_dict())) == "<All keys matched successfully>"


def test_hook_spectral_norm_misuse_raises_torchs_errors(torch):
    def misuses(lib):
        sn, remove = lib.nn.utils.spectral_norm, lib.nn.utils.remove_spectral_norm
        return [
            lambda: sn(sn(lib.nn.Linear(3, 4))),
            lambda: sn(lib.nn.Linear(3, 4), n_power_iterations=0),
            lambda: sn(lib.nn.Linear(3, 4, bias=False), name="bias"),
            lambda: remove(lib.nn.Linear(3, 4)),
        ]

    for ours, theirs in zip(misuses(dyngrad), misuses(torch)):
        expected = _message(theirs)
        assert expected is not None
        assert _message(ours) == expected
