"""Optimizer checkpoints from older PyTorch releases load and step as in PyTorch (groups lacking
the options added since, integer step counts), and the four state-dict hooks."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest

import dyngrad

# options PyTorch added to the groups over the releases (an old checkpoint has none of them)
NEWER = {
    "maximize",
    "foreach",
    "capturable",
    "differentiable",
    "fused",
    "decoupled_weight_decay",
    "param_names",
}
OPTIMIZERS = [
    "SGD",
    "Adam",
    "AdamW",
    "RMSprop",
    "Adadelta",
    "Adamax",
    "NAdam",
    "RAdam",
    "ASGD",
    "Rprop",
]


def _old_checkpoint(lib, name):
    lib.manual_seed(0)
    p = lib.nn.Parameter(lib.linspace(-1, 1, 4))
    kwargs = {"momentum": 0.9} if name == "SGD" else {}
    opt = getattr(lib.optim, name)([p], lr=0.05, **kwargs)
    for k in range(2):
        p.grad = lib.linspace(0.5, -0.5, 4) * (k + 1)
        opt.step()
    sd = opt.state_dict()
    groups = [{k: v for k, v in g.items() if k not in NEWER} for g in sd["param_groups"]]
    state = {
        i: {k: (int(v.item()) if k == "step" else v) for k, v in s.items()}
        for i, s in sd["state"].items()
    }
    return p.detach().numpy(), {"state": state, "param_groups": groups}


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_old_checkpoint_loads_and_steps_as_torch(name, torch):
    results = []
    for lib in (dyngrad, torch):
        values, checkpoint = _old_checkpoint(torch, name)  # written by PyTorch, as it would be
        state = {
            i: {k: (lib.from_numpy(v.numpy()) if hasattr(v, "numpy") else v) for k, v in s.items()}
            for i, s in checkpoint["state"].items()
        }
        p = lib.nn.Parameter(lib.from_numpy(values))
        opt = getattr(lib.optim, name)([p], lr=0.05)
        opt.load_state_dict({"state": state, "param_groups": checkpoint["param_groups"]})
        p.grad = lib.linspace(0.3, -0.2, 4)
        opt.step()
        step = opt.state_dict()["state"][0].get("step")
        results.append(
            (
                p.detach().numpy(),
                sorted(opt.param_groups[0]),
                None if step is None else (type(step).__name__, float(step)),
            )
        )
    (ours, our_keys, our_step), (theirs, their_keys, their_step) = results
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-7)
    assert our_keys == their_keys
    assert our_step == their_step


def test_state_dict_hooks(lib):
    opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(2))], lr=0.1)
    log = []
    opt.register_state_dict_pre_hook(lambda o: log.append("pre"))
    opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
    first = opt.register_state_dict_pre_hook(lambda o: log.append("first"), prepend=True)
    opt.register_load_state_dict_pre_hook(lambda o, sd: {**sd, "param_groups": sd["param_groups"]})
    opt.register_load_state_dict_post_hook(lambda o: log.append("loaded"))
    sd = opt.state_dict()
    assert "extra" in sd and log == ["first", "pre"]
    first.remove()
    opt.load_state_dict(OrderedDict((k, v) for k, v in sd.items() if k != "extra"))
    assert log == ["first", "pre", "loaded"]
