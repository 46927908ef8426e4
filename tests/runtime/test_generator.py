"""Generators: seeds, PyTorch's state bytes both ways, clones, pickles, fork_rng."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import dyngrad


def _bytes(state) -> bytes:
    return bytes(state.numpy().tobytes())


def test_seeds_and_initial_seed_as_torch(lib):
    assert lib.Generator().initial_seed() == 67280421310721
    assert lib.Generator().manual_seed(-1).initial_seed() == 2**64 - 1
    assert lib.Generator().manual_seed(-(2**63)).initial_seed() == 2**63
    assert lib.manual_seed(5).initial_seed() == 5 == lib.initial_seed()
    g = lib.Generator()
    seed = g.seed()
    assert g.initial_seed() == seed and 0 <= seed < 2**64
    assert lib.random.initial_seed() == lib.initial_seed()


@pytest.mark.parametrize("seed", [2**64, -(2**63) - 1])
def test_a_seed_out_of_range_raises_as_torch(lib, seed):
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        lib.Generator().manual_seed(seed)


def test_a_float_seed_is_refused_by_a_generator(lib):
    with pytest.raises(RuntimeError, match="manual_seed expected a long, but got float"):
        lib.Generator().manual_seed(1.5)
    assert lib.manual_seed(2.0).initial_seed() == 2  # torch.manual_seed takes int(seed)


@pytest.mark.parametrize(
    "history",
    [
        "",
        "t.rand(3, generator=g)",
        "t.rand(624, generator=g)",
        "t.rand(700, generator=g); t.randn(1, dtype=t.float64, generator=g)",
        "t.randn(3, generator=g); t.randperm(50, generator=g)",
    ],
)
def test_states_are_torchs_bytes(history, torch):
    states = []
    for lib in (dyngrad, torch):
        g = lib.Generator().manual_seed(12345)
        exec(history, {"t": lib, "g": g})
        states.append(_bytes(g.get_state()))
    assert len(states[0]) == 5056
    assert states[0] == states[1]


def test_a_torch_state_restores_dyngrad_and_back(torch):
    torch.manual_seed(3)
    torch.randn(5, dtype=torch.float64)  # leaves a cached normal in the state
    state = torch.get_rng_state()
    dyngrad.set_rng_state(dyngrad.tensor(state.numpy()))
    np.testing.assert_array_equal(dyngrad.randn(7).numpy(), torch.randn(7).numpy())
    dyngrad.rand(1000)
    torch.set_rng_state(torch.from_numpy(dyngrad.get_rng_state().numpy().copy()))
    np.testing.assert_array_equal(dyngrad.randn(40).numpy(), torch.randn(40).numpy())


def test_set_state_checks_as_torch(lib):
    g = lib.Generator()
    with pytest.raises(RuntimeError, match="Expected a CPUGeneratorImplState of size 5056"):
        g.set_state(lib.zeros(10, dtype=lib.uint8))
    with pytest.raises(TypeError, match="RNG state must be a torch.ByteTensor"):
        g.set_state(lib.zeros(5056))
    state = g.get_state()
    state[8] = 0  # `left` = 0
    with pytest.raises(RuntimeError, match="Invalid mt19937 state"):
        g.set_state(state)


def test_clones_pickles_and_copies_continue_the_stream(lib):
    g = lib.Generator().manual_seed(4)
    lib.randn(3, generator=g)
    for other in (g.clone_state(), pickle.loads(pickle.dumps(g)), copy.deepcopy(g)):
        assert other.initial_seed() == 4
        expected = lib.randn(5, generator=other).tolist()
        state = g.get_state()
        assert lib.randn(5, generator=g).tolist() == expected
        g.set_state(state)


def test_fork_rng_restores_the_default_stream(lib):
    lib.manual_seed(8)
    with lib.random.fork_rng():
        inside = lib.rand(3).tolist()
    assert lib.rand(3).tolist() == inside
    with lib.random.fork_rng(enabled=False):
        lib.rand(3)
    assert lib.rand(3).tolist() != inside


def test_get_and_set_rng_state(lib):
    lib.manual_seed(2)
    state = lib.get_rng_state()
    a = lib.randn(4).tolist()
    lib.set_rng_state(state)
    assert lib.randn(4).tolist() == a
    assert lib.random.get_rng_state().dtype == lib.uint8


def test_a_cpu_generator_has_no_offset(lib):
    with pytest.raises(RuntimeError, match="CPU Generator does not use offset"):
        lib.Generator().get_offset()


def test_a_generator_lives_on_a_device(lib):
    assert lib.Generator().device == lib.device("cpu")
    assert lib.Generator(device="cpu").device.type == "cpu"
