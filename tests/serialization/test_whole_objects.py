"""Whole models: pickled by save, refused by load unless trusted or their classes allowed."""

from __future__ import annotations

import pickle
import warnings
from pathlib import Path

import numpy as np
import pytest

import dyngrad
from dyngrad import nn
from dyngrad.serialization import (
    add_safe_globals,
    clear_safe_globals,
    get_safe_globals,
    safe_globals,
)

from ..ecosystem.scripts import run as run_script

REFUSED = "Weights only load failed. "


@pytest.fixture(autouse=True)
def no_safe_globals():
    clear_safe_globals()
    yield
    clear_safe_globals()


class RNNModel(nn.Module):
    """A word-level language model, as PyTorch's example saves (whole) and reloads it."""

    def __init__(self, tokens: int = 11, width: int = 4) -> None:
        super().__init__()
        self.drop = nn.Dropout(0.5)
        self.encoder = nn.Embedding(tokens, width)
        self.rnn = nn.LSTM(width, width, 2, dropout=0.5)
        self.decoder = nn.Linear(width, tokens)

    def forward(self, tokens):
        output, _ = self.rnn(self.drop(self.encoder(tokens)))
        return self.decoder(self.drop(output))


RNN_CLASSES = [RNNModel, nn.Dropout, nn.Embedding, nn.LSTM, nn.Linear]
TOKENS = dyngrad.tensor([[1, 2], [3, 4], [5, 6]])


def _saved_model(tmp_path) -> tuple[Path, RNNModel]:
    dyngrad.manual_seed(0)
    model = RNNModel().eval()
    dyngrad.save(model, tmp_path / "model.pt")
    return tmp_path / "model.pt", model


def _same_outputs(a, b) -> None:
    with dyngrad.no_grad():
        assert a(TOKENS).tolist() == b(TOKENS).tolist()


def test_a_whole_model_is_refused_with_torchs_message(tmp_path):
    path, _ = _saved_model(tmp_path)
    with pytest.raises(pickle.UnpicklingError) as info:
        dyngrad.load(path)
    message = str(info.value)
    assert message.startswith(f"{REFUSED}{path} can still be loaded, to do so you have two options")
    assert f"GLOBAL {__name__}.RNNModel was not an allowed global by default" in message
    assert f"`torch.serialization.add_safe_globals([{__name__}.RNNModel])`" in message


def test_a_whole_model_loads_when_trusted(tmp_path):
    path, model = _saved_model(tmp_path)
    loaded = dyngrad.load(path, weights_only=False)
    assert type(loaded) is RNNModel and loaded is not model
    _same_outputs(loaded, model)


def test_a_whole_model_loads_with_its_classes_allowed(tmp_path):
    path, model = _saved_model(tmp_path)
    with safe_globals(RNN_CLASSES):
        loaded = dyngrad.load(path)
        assert set(get_safe_globals()) == set(RNN_CLASSES)
    assert get_safe_globals() == []
    _same_outputs(loaded, model)
    assert isinstance(loaded.decoder.weight, nn.Parameter)
    assert loaded.decoder.weight.requires_grad and not loaded.training


def test_allowing_too_few_classes_names_the_next_one(tmp_path):
    path, _ = _saved_model(tmp_path)
    add_safe_globals([RNNModel, nn.Dropout])
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL dyngrad.nn.modules.sparse.Embedding"):
        dyngrad.load(path)
    add_safe_globals([nn.Embedding, nn.LSTM, (nn.Linear, "dyngrad.nn.modules.linear.Linear")])
    _same_outputs(dyngrad.load(path), _saved_model(tmp_path)[1])


def test_safe_globals_check_their_pairs_as_torch(tmp_path):
    path, _ = _saved_model(tmp_path)
    add_safe_globals([(nn.Linear, "a", "b")])
    with pytest.raises(ValueError, match="Expected tuple of length 2"):
        dyngrad.load(path)
    clear_safe_globals()
    add_safe_globals([(nn.Linear, 3)])
    with pytest.raises(TypeError, match="Expected second item in tuple to be str"):
        dyngrad.load(path)


def test_a_model_torch_saved_whole_loads_as_dyngrad_modules(torch, tmp_path):
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU(), torch.nn.BatchNorm1d(2))
    theirs.eval()
    torch.save(theirs, tmp_path / "theirs.pt")
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL torch.nn.modules.container"):
        dyngrad.load(tmp_path / "theirs.pt")
    with safe_globals([nn.Sequential, nn.Linear, nn.ReLU, nn.BatchNorm1d]):
        allowed = dyngrad.load(tmp_path / "theirs.pt")
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    for ours in (dyngrad.load(tmp_path / "theirs.pt", weights_only=False), allowed):
        assert type(ours) is nn.Sequential and type(ours[2]) is nn.BatchNorm1d
        np.testing.assert_allclose(
            ours(dyngrad.tensor(x)).detach().numpy(),
            theirs(torch.tensor(x)).detach().numpy(),
            rtol=1e-5,
            atol=1e-7,
        )


def test_a_trusted_load_names_what_dyngrad_lacks(torch, tmp_path):
    torch.save({"q": torch.nn.ChannelShuffle(2)}, tmp_path / "odd.pt")
    if hasattr(dyngrad.nn, "ChannelShuffle"):
        pytest.skip("dyngrad has ChannelShuffle now: pick a module it lacks")
    with pytest.raises(pickle.UnpicklingError, match="needs `torch.nn.modules.channelshuffle.Cha"):
        dyngrad.load(tmp_path / "odd.pt", weights_only=False)


def test_load_takes_torchs_arguments_as_torch(tmp_path):
    path, _ = _saved_model(tmp_path)
    with pytest.raises(RuntimeError, match="Can not safely load weights when explicit pickle_modu"):
        dyngrad.load(path, pickle_module=pickle, weights_only=True)
    assert type(dyngrad.load(path, pickle_module=pickle)) is RNNModel  # weights_only False then
    dyngrad.save({"w": dyngrad.ones(1)}, tmp_path / "w.pt")
    with pytest.warns(UserWarning, match="pickle_load_args only works if `weights_only=False`"):
        dyngrad.load(tmp_path / "w.pt", encoding="latin1")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert dyngrad.load(tmp_path / "w.pt", weights_only=False, encoding="latin1")["w"] == 1


def test_save_refuses_what_it_cannot_write_as_torch_reads_it(tmp_path):
    with pytest.raises(ValueError, match="not the legacy format"):
        dyngrad.save([1], tmp_path / "a.pt", _use_new_zipfile_serialization=False)
    with pytest.raises(ValueError, match="pickle protocols 2 to"):
        dyngrad.save([1], tmp_path / "a.pt", pickle_protocol=1)
    with pytest.raises(TypeError, match="pickles with Python's pickle module"):
        dyngrad.save([1], tmp_path / "a.pt", pickle_module=np)
    assert not list(tmp_path.iterdir())


SCRIPT = """
    import pickle
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(2, 1)

        def forward(self, x):
            return self.fc(x)

    torch.manual_seed(0)
    net = Net()
    torch.save(net, "net.pt")
    try:
        torch.load("net.pt")
    except pickle.UnpicklingError as exc:
        print(str(exc).splitlines()[0][:26])
    with torch.serialization.safe_globals([Net, torch.nn.Linear]):
        again = torch.load("net.pt")
    x = torch.ones(3, 2)
    print(bool((again(x) == net(x)).all()), type(again.fc).__module__)
"""


def test_whole_models_under_dyngrad_run(tmp_path):
    done = run_script(tmp_path, SCRIPT, under="dyngrad")
    assert done.stdout.splitlines() == [
        "Weights only load failed. ",
        "True dyngrad.nn.modules.linear",
    ]


# ---- mmap ----------------------------------------------------------------------------------


def test_mmap_maps_the_storages_copy_on_write(tmp_path):
    path = tmp_path / "big.pt"
    dyngrad.save({"w": dyngrad.arange(1000.0), "v": dyngrad.arange(10).view(2, 5)}, path)
    before = path.read_bytes()
    mapped = dyngrad.load(path, mmap=True)
    assert mapped["w"].tolist() == list(np.arange(1000.0))
    assert mapped["v"].tolist() == dyngrad.arange(10).view(2, 5).tolist()
    assert mapped["w"].numpy().base is not None  # a view of the mapping, not a copy
    mapped["w"].add_(1)
    assert mapped["w"][0].item() == 1.0 and path.read_bytes() == before
    assert dyngrad.load(path, mmap=True, map_location="cpu")["w"][0].item() == 0.0


def test_mmap_needs_a_path_and_a_zip(torch, tmp_path):
    dyngrad.save([dyngrad.ones(1)], tmp_path / "a.pt")
    with open(tmp_path / "a.pt", "rb") as handle:
        with pytest.raises(ValueError, match="f must be a file path in order to use the mmap"):
            dyngrad.load(handle, mmap=True)
    torch.save([torch.ones(1)], tmp_path / "old.pt", _use_new_zipfile_serialization=False)
    with pytest.raises(RuntimeError, match="mmap can only be used with files saved with"):
        dyngrad.load(tmp_path / "old.pt", mmap=True)


# ---- dyngrad's earlier format ---------------------------------------------------------------


def test_files_of_dyngrad_0_1_still_load():
    old = dyngrad.load(Path(__file__).parent / "data" / "dyngrad-0.1.pt")
    sd = old["state_dict"]
    assert list(sd) == ["weight", "bias", "steps"] and sd._metadata == {"": {"version": 1}}
    assert isinstance(sd["weight"], nn.Parameter) and old["again"] is sd["weight"]
    assert sd["weight"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert sd["bias"].requires_grad and sd["steps"].item() == 3
    for name, t in old["dtypes"].items():
        assert (
            str(t.dtype) == f"torch.{name}" and t.tolist() == dyngrad.arange(4).to(t.dtype).tolist()
        )
    assert old["numpy"].dtype == np.uint16 and old["npscalar"] == 2.5
    assert old["size"] == dyngrad.Size([2, 3]) and old["dtype"] is dyngrad.float16
    assert old["bytes"] == b"ab" and old["complex"] == 1 - 2j and old["frozen"] == {"a"}
