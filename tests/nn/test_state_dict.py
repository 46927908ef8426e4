"""state_dict keys, values and metadata; load_state_dict and PyTorch's error messages."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest

import dyngrad
from dyngrad import nn


def _model(nn):
    return nn.Sequential(
        nn.Linear(2, 3), nn.BatchNorm1d(3), nn.ReLU(), nn.LSTM(3, 2), nn.Embedding(4, 3)
    )


def test_keys_and_metadata_match_torch(torch):
    ours, theirs = _model(nn).state_dict(), _model(torch.nn).state_dict()
    assert isinstance(ours, OrderedDict)
    assert list(ours) == list(theirs)
    assert ours._metadata == theirs._metadata
    assert all(not v.requires_grad for v in ours.values())


def test_keep_vars_returns_the_parameters():
    model = nn.Linear(2, 2)
    state = model.state_dict(keep_vars=True)
    assert state["weight"] is model.weight
    assert state["weight"].requires_grad


def test_values_are_detached_aliases():
    model = nn.Linear(2, 2)
    state = model.state_dict()
    assert state["weight"].data_ptr() == model.weight.data_ptr()
    assert state["weight"].grad_fn is None


def test_prefix_and_non_persistent_buffers():
    m = nn.Module()
    m.register_buffer("kept", dyngrad.zeros(1))
    m.register_buffer("dropped", dyngrad.zeros(1), persistent=False)
    m.register_buffer("empty", None)
    assert list(m.state_dict(prefix="net.")) == ["net.kept"]


def test_load_copies_values_in_place():
    src, dst = nn.Linear(3, 2), nn.Linear(3, 2)
    weight = dst.weight
    result = dst.load_state_dict(src.state_dict())
    assert repr(result) == "<All keys matched successfully>"
    assert dst.weight is weight
    np.testing.assert_array_equal(dst.weight.detach().numpy(), src.weight.detach().numpy())


def test_load_with_assign_takes_the_tensors():
    dst = nn.Linear(3, 2)
    new_weight = dyngrad.randn(2, 3)
    dst.load_state_dict({"weight": new_weight, "bias": dyngrad.zeros(2)}, assign=True)
    assert isinstance(dst.weight, nn.Parameter) and dst.weight.requires_grad
    assert dst.weight.data_ptr() == new_weight.data_ptr()


@pytest.mark.parametrize(
    "state",
    [
        "{'weight': t.zeros(3, 2)}",
        "{'weight': t.zeros(3, 2), 'bias': t.zeros(3), 'foo': t.zeros(1), 'bar': 1}",
        "{'weight': t.zeros(4, 2), 'bias': t.zeros(3)}",
        "{'weight': t.zeros(4, 2), 'foo': t.zeros(3)}",
        "{'weight': 1, 'bias': t.zeros(3)}",
    ],
)
def test_load_errors_match_torch(state, torch):
    messages = []
    for t in (torch, dyngrad):
        with pytest.raises(RuntimeError) as info:
            t.nn.Linear(2, 3).load_state_dict(eval(state, {"t": t}))
        messages.append(str(info.value))
    assert messages[1] == messages[0]


def test_load_errors_in_nested_modules_match_torch(torch):
    messages = []
    for t in (torch, dyngrad):
        model = _model(t.nn)
        state = dict(model.state_dict())
        del state["1.running_var"]
        state["3.weight_ih_l0"] = t.zeros(1)
        state["9.weight"] = t.zeros(1)
        with pytest.raises(RuntimeError) as info:
            model.load_state_dict(state)
        messages.append(str(info.value))
    assert messages[1] == messages[0]


def test_non_strict_load_reports_keys(torch):
    ours = nn.Linear(2, 3).load_state_dict(
        {"weight": dyngrad.zeros(3, 2), "foo": dyngrad.zeros(3)}, strict=False
    )
    theirs = torch.nn.Linear(2, 3).load_state_dict(
        {"weight": torch.zeros(3, 2), "foo": torch.zeros(3)}, strict=False
    )
    assert repr(ours) == repr(theirs)
    assert ours.missing_keys == ["bias"] and ours.unexpected_keys == ["foo"]


def test_load_rejects_non_mapping():
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like, got <class 'list'>."):
        nn.Linear(1, 1).load_state_dict([1])


def test_batchnorm_loads_old_checkpoints_without_num_batches_tracked():
    bn = nn.BatchNorm1d(2)
    state = {k: v for k, v in bn.state_dict().items() if k != "num_batches_tracked"}
    assert repr(bn.load_state_dict(state)) == "<All keys matched successfully>"


def test_state_dict_from_torch_loads_and_gives_same_outputs(torch):
    theirs = _model(torch.nn)[:3].eval()
    ours = _model(nn)[:3].eval()
    ours.load_state_dict({k: dyngrad.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    inp = np.random.default_rng(0).standard_normal((4, 2)).astype(np.float32)
    np.testing.assert_allclose(
        ours(dyngrad.from_numpy(inp)).detach().numpy(),
        theirs(torch.from_numpy(inp)).detach().numpy(),
        rtol=1e-5,
        atol=1e-6,
    )


def test_extra_state_round_trips():
    class WithState(nn.Module):
        def __init__(self):
            super().__init__()
            self.counter = 0

        def get_extra_state(self):
            return {"counter": self.counter}

        def set_extra_state(self, state):
            self.counter = state["counter"]

    a, b = WithState(), WithState()
    a.counter = 5
    assert list(a.state_dict()) == ["_extra_state"]
    b.load_state_dict(a.state_dict())
    assert b.counter == 5


def test_state_dict_hooks_run():
    m = nn.Linear(1, 1)
    seen = []
    m.register_state_dict_pre_hook(lambda module, prefix, keep_vars: seen.append(prefix))

    def drop_bias(module, state, prefix, meta):
        del state[prefix + "bias"]

    m.register_state_dict_post_hook(drop_bias)
    assert list(m.state_dict(prefix="x.")) == ["x.weight"] and seen == ["x."]

    def drop_missing(module, keys):
        keys.missing_keys.clear()

    m.register_load_state_dict_post_hook(drop_missing)
    m.load_state_dict({"weight": dyngrad.zeros(1, 1)})


def test_state_dict_hook_writes_into_saved_metadata():
    # a post-hook's local_metadata is the entry saved in `_metadata` (spectral_norm records
    # its version there), as in PyTorch
    def hook(module, state_dict, prefix, local_metadata):
        local_metadata["extra"] = 1

    outer = dyngrad.nn.Sequential(dyngrad.nn.Linear(2, 2))
    outer[0]._register_state_dict_hook(hook)
    metadata = outer.state_dict()._metadata
    assert metadata["0"] == {"version": 1, "extra": 1} and metadata[""] == {"version": 1}
    sn = dyngrad.nn.utils.spectral_norm(dyngrad.nn.Linear(3, 2))
    assert sn.state_dict()._metadata[""]["spectral_norm"] == {"weight.version": 1}
