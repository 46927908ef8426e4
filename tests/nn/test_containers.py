"""Sequential, ModuleList, ModuleDict, ParameterList and ParameterDict."""

from __future__ import annotations

from collections import OrderedDict

import pytest

import dyngrad
from dyngrad import nn


def test_sequential_indexing_and_slicing():
    a, b, c = nn.Linear(1, 2), nn.ReLU(), nn.Linear(2, 1)
    seq = nn.Sequential(a, b, c)
    assert seq[0] is a and seq[-1] is c and len(seq) == 3
    sub = seq[1:]
    assert isinstance(sub, nn.Sequential) and list(sub) == [b, c]
    assert list(sub._modules) == ["1", "2"]
    seq[1] = nn.Tanh()
    assert isinstance(seq[1], nn.Tanh)
    del seq[0]
    assert list(seq._modules) == ["0", "1"] and seq[1] is c
    with pytest.raises(IndexError, match="index 5 is out of range"):
        seq[5]


def test_sequential_named_and_editing():
    seq = nn.Sequential(OrderedDict([("fc", nn.Linear(1, 2)), ("act", nn.ReLU())]))
    assert list(seq._modules) == ["fc", "act"] and seq.fc is seq[0]
    seq.append(nn.Linear(2, 3))
    seq.insert(0, nn.Identity())
    seq.extend([nn.Tanh()])
    assert [type(m).__name__ for m in seq] == ["Identity", "Linear", "ReLU", "Linear", "Tanh"]
    with pytest.raises(IndexError, match="Index out of range: 9"):
        seq.insert(9, nn.ReLU())
    assert len(seq + nn.Sequential(nn.ReLU())) == 6
    popped = seq.pop(0)
    assert isinstance(popped, nn.Identity) and len(seq) == 4


def test_sequential_forward_chains_modules():
    seq = nn.Sequential(nn.Linear(3, 2), nn.ReLU())
    out = seq(dyngrad.randn(4, 3))
    assert out.shape == (4, 2) and (out.detach().numpy() >= 0).all()


def test_module_list():
    layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(2)])
    layers.append(nn.ReLU())
    layers.extend([nn.Tanh()])
    layers.insert(1, nn.Identity())
    assert [type(m).__name__ for m in layers] == ["Linear", "Identity", "Linear", "ReLU", "Tanh"]
    assert len(list(layers.parameters())) == 4
    assert isinstance(layers[1:3], nn.ModuleList) and len(layers[1:3]) == 2
    del layers[0]
    assert list(layers._modules) == ["0", "1", "2", "3"]
    with pytest.raises(IndexError, match="index 7 is out of range"):
        layers[7]
    with pytest.raises(
        TypeError, match="ModuleList.extend should be called with an iterable, but got int"
    ):
        layers.extend(1)
    with pytest.raises(NotImplementedError, match=r"Module \[ModuleList\] is missing"):
        layers(dyngrad.ones(1))
    assert len(layers + nn.ModuleList([nn.ReLU()])) == 5


def test_module_dict():
    d = nn.ModuleDict({"b": nn.ReLU(), "a": nn.Linear(1, 1)})
    assert list(d.keys()) == ["b", "a"] and "a" in d and len(d) == 2
    d["c"] = nn.Tanh()
    d.update([("e", nn.Identity())])
    assert list(d) == ["b", "a", "c", "e"]
    assert isinstance(d.pop("b"), nn.ReLU) and "b" not in d
    with pytest.raises(
        ValueError, match="ModuleDict update sequence element #0 has length 1; 2 is required"
    ):
        d.update([("x",)])
    assert [n for n, _ in d.named_parameters()] == ["a.weight", "a.bias"]


def test_parameter_list_wraps_tensors():
    plist = nn.ParameterList([dyngrad.zeros(2), nn.Parameter(dyngrad.ones(3))])
    assert isinstance(plist[0], nn.Parameter) and plist[0].requires_grad
    plist.append(dyngrad.zeros(1))
    assert len(plist) == 3 and [n for n, _ in plist.named_parameters()] == ["0", "1", "2"]
    assert len(list(iter(plist))) == 3


def test_parameter_dict_sorts_plain_dicts_as_torch(torch):
    ours = nn.ParameterDict({"b": dyngrad.zeros(1), "a": dyngrad.zeros(2)})
    theirs = torch.nn.ParameterDict({"b": torch.zeros(1), "a": torch.zeros(2)})
    assert list(ours.keys()) == list(theirs.keys())
    assert isinstance(ours["a"], nn.Parameter)
    ours["c"] = dyngrad.ones(1)
    assert "c" in ours and ours.get("zz") is None
    assert isinstance(ours.pop("c"), nn.Parameter) and "c" not in ours
    with pytest.raises(TypeError, match="Index given to ParameterDict cannot be used as a key"):
        ours[1]


def test_module_list_repr_groups_repeats(torch):
    ours = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU(), nn.ReLU()])
    theirs = torch.nn.ModuleList(
        [torch.nn.Linear(2, 2) for _ in range(3)] + [torch.nn.ReLU(), torch.nn.ReLU()]
    )
    assert repr(ours) == repr(theirs)
