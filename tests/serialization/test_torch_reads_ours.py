"""Checkpoints both ways: torch.load reads what dyngrad.save wrote, and dyngrad what torch wrote."""

from __future__ import annotations

import collections
import struct
import zipfile

import numpy as np
import pytest

import dyngrad

DTYPES = [
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "bool",
    "complex64",
    "complex128",
]
DIRECTIONS = ["dyngrad->torch", "torch->dyngrad"]


@pytest.fixture(params=DIRECTIONS)
def libs(request, torch):
    """(the library that saves, the one that loads)."""
    return (dyngrad, torch) if request.param == "dyngrad->torch" else (torch, dyngrad)


def _checkpoint(lib) -> dict:
    """One of each thing a checkpoint holds, made the same way with either library."""
    base = lib.arange(10.0)
    leaf = lib.tensor([1.0, -2.0], requires_grad=True)
    frozen = lib.nn.Parameter(lib.ones(2), requires_grad=False)
    return {
        "dtypes": {name: lib.arange(6).reshape(2, 3).to(getattr(lib, name)) for name in DTYPES},
        "scalar": lib.tensor(2.5),
        "int_scalar": lib.tensor(7),
        "empty": lib.zeros(0, 3),
        "transposed": lib.arange(6.0).reshape(2, 3).t(),
        "strided": lib.arange(12.0).reshape(3, 4)[::2, 1::2],
        "expanded": lib.ones(3).expand(2, 3),
        "views": {"base": base, "slice": base[2:5], "matrix": base.view(2, 5), "every": base[::3]},
        "requires_grad": leaf,
        "non_leaf": leaf * 2,
        "parameter": lib.nn.Parameter(lib.full((2, 2), 0.5)),
        "frozen_parameter": frozen,
        "nested": {
            "list": [1, 2.5, "text", None, True, False, [3, (4, 5)]],
            "tuple": (1, ("a", None), 2.0),
            "none": None,
            "int": -(2**40),
            "float": 1e-30,
            "str": "é",
            "bool": True,
            7: "int key",
            (1, 2): "tuple key",
        },
        "dtype": lib.float16,
        "size": lib.Size([2, 3]),
        "device": lib.device("cpu"),
    }


def _values(t):
    return t.detach().tolist()


def assert_same(ours, theirs, where="checkpoint"):
    """`ours` (one library's object) holds what `theirs` (the other's) holds."""
    if hasattr(theirs, "requires_grad") and hasattr(theirs, "stride"):  # a tensor
        assert str(ours.dtype) == str(theirs.dtype), where
        assert tuple(ours.shape) == tuple(theirs.shape), where
        if theirs.numel():  # NumPy gives an empty array strides of 0, torch contiguous ones
            assert ours.stride() == theirs.stride(), where
        assert ours.requires_grad == theirs.requires_grad and ours.is_leaf, where
        is_parameter = type(theirs).__name__ == "Parameter"
        assert (type(ours).__name__ == "Parameter") == is_parameter, where
        assert _values(ours) == _values(theirs), where
    elif isinstance(theirs, dict):
        assert type(ours) is type(theirs) and list(ours) == list(theirs), where
        assert getattr(ours, "_metadata", None) == getattr(theirs, "_metadata", None), where
        for key in theirs:
            assert_same(ours[key], theirs[key], f"{where}[{key!r}]")
    elif isinstance(theirs, (list, tuple)):
        assert type(ours).__name__ == type(theirs).__name__ and len(ours) == len(theirs), where
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert_same(a, b, f"{where}[{i}]")
    elif type(theirs).__name__ in ("dtype", "device"):
        assert str(ours) == str(theirs), where
    else:
        assert type(ours) is type(theirs) and ours == theirs, where


def test_every_kind_of_value_loads_across(libs, tmp_path):
    saver, loader = libs
    saved = _checkpoint(saver)
    saver.save(saved, tmp_path / "everything.pt")
    loaded = loader.load(tmp_path / "everything.pt")  # weights_only=True, the default
    assert_same(loaded, saved)


def test_views_share_one_storage_after_loading(libs, tmp_path):
    saver, loader = libs
    views = _checkpoint(saver)["views"]
    saver.save(views, tmp_path / "views.pt")
    with zipfile.ZipFile(tmp_path / "views.pt") as archive:  # saved once
        assert sum("/data/" in name for name in archive.namelist()) == 1
    loaded = loader.load(tmp_path / "views.pt")
    loaded["base"].add_(1)
    assert _values(loaded["slice"]) == [3.0, 4.0, 5.0]
    assert _values(loaded["every"]) == [1.0, 4.0, 7.0, 10.0]
    loaded["matrix"][1].mul_(0)
    assert _values(loaded["base"])[4:7] == [5.0, 0.0, 0.0]


def test_a_parameter_and_its_state_dict_entry_share_after_loading(libs, tmp_path):
    saver, loader = libs
    layer = saver.nn.Linear(3, 2)
    saver.save({"weight": layer.weight, "sd": layer.state_dict()}, tmp_path / "shared.pt")
    loaded = loader.load(tmp_path / "shared.pt")
    assert type(loaded["weight"]).__name__ == "Parameter"
    with loader.no_grad():
        loaded["weight"].zero_()
    assert _values(loaded["sd"]["weight"]) == [[0.0] * 3] * 2


def _model(lib):
    model = lib.nn.Sequential(
        lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.ReLU(), lib.nn.Linear(4, 2)
    )
    with lib.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(lib.linspace(-1.0, 1.0, p.numel()).reshape(p.shape) * (i + 1))
    return model


def _train(lib, model, optimizer, steps: int) -> None:
    x = lib.tensor(np.linspace(-2, 2, 15, dtype=np.float32).reshape(5, 3))
    for _ in range(steps):
        optimizer.zero_grad()
        model(x).pow(2).mean().backward()
        optimizer.step()


OPTIMIZERS = {
    "SGD momentum": lambda lib, params: lib.optim.SGD(params, lr=0.1, momentum=0.9),
    "Adam": lambda lib, params: lib.optim.Adam(params, lr=0.01, weight_decay=0.01),
}


@pytest.mark.parametrize("make_optimizer", list(OPTIMIZERS.values()), ids=list(OPTIMIZERS))
def test_training_resumes_across_libraries(libs, tmp_path, make_optimizer):
    saver, loader = libs
    model = _model(saver)
    optimizer = make_optimizer(saver, model.parameters())
    _train(saver, model, optimizer, 2)
    state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": 2}
    saver.save(state, tmp_path / "resume.pt")

    checkpoint = loader.load(tmp_path / "resume.pt")
    assert_same(checkpoint, state)
    resumed = _model(loader)
    resumed.load_state_dict(checkpoint["model"])
    resumed_optimizer = make_optimizer(loader, resumed.parameters())
    resumed_optimizer.load_state_dict(checkpoint["optimizer"])
    assert_same(resumed_optimizer.state_dict(), optimizer.state_dict())
    _train(saver, model, optimizer, 2)
    _train(loader, resumed, resumed_optimizer, 2)
    for ours, theirs in zip(resumed.state_dict().values(), model.state_dict().values()):
        # two libraries' float32 arithmetic, two steps on: close, not equal
        np.testing.assert_allclose(_values(ours), _values(theirs), rtol=1e-4, atol=1e-4)


@pytest.mark.filterwarnings("ignore:Detected pickle protocol")  # torch's, for protocol 3
@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_every_pickle_protocol_loads_across(libs, tmp_path, protocol):
    saver, loader = libs
    saved = {"w": saver.arange(4.0), "size": saver.Size([4]), "dtype": saver.int8}
    saver.save(saved, tmp_path / "protocol.pt", pickle_protocol=protocol)
    # torch's weights_only reader knows no FRAME opcode: it refuses protocol 4 and 5 pickles,
    # torch's own among them; dyngrad's reads them
    trusted = loader is not dyngrad and protocol >= 4
    assert_same(loader.load(tmp_path / "protocol.pt", weights_only=not trusted), saved)


# ---- the file itself -----------------------------------------------------------------------


def _records(path) -> list[tuple[str, int]]:
    """(record name without its folder, offset of its bytes in the file) for each record."""
    data = path.read_bytes()
    out = []
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            name_length, extra_length = struct.unpack_from("<HH", data, info.header_offset + 26)
            start = info.header_offset + 30 + name_length + extra_length
            out.append((info.filename.split("/", 1)[1], start))
    return out


def test_the_zip_has_torch_records_in_torch_order_each_64_byte_aligned(torch, tmp_path):
    dyngrad.save({"a": dyngrad.ones(3), "b": dyngrad.tensor(2)}, tmp_path / "ours.pt")
    torch.save({"a": torch.ones(3), "b": torch.tensor(2)}, tmp_path / "theirs.pt")
    ours, theirs = _records(tmp_path / "ours.pt"), _records(tmp_path / "theirs.pt")
    assert [name for name, _ in ours] == [name for name, _ in theirs]
    assert all(start % 64 == 0 for _, start in ours)
    with zipfile.ZipFile(tmp_path / "ours.pt") as archive:
        assert archive.namelist()[0] == "ours/data.pkl"  # torch names the folder after the file
        assert archive.read("ours/version") == b"3\n"
        assert archive.read("ours/byteorder") == b"little"
        assert all(info.compress_type == zipfile.ZIP_STORED for info in archive.infolist())


def test_a_file_object_gets_the_folder_name_torch_gives_it(torch, tmp_path):
    with open(tmp_path / "handle.pt", "wb") as handle:
        dyngrad.save([dyngrad.ones(2)], handle)
    with zipfile.ZipFile(tmp_path / "handle.pt") as archive:
        assert archive.namelist()[0] == "archive/data.pkl"
    assert torch.load(tmp_path / "handle.pt")[0].tolist() == [1.0, 1.0]


def test_each_maps_the_others_storages_in_place(torch, tmp_path):
    dyngrad.save({"w": dyngrad.arange(1000.0)}, tmp_path / "ours.pt")
    torch.save({"w": torch.arange(1000.0)[1:]}, tmp_path / "theirs.pt")
    assert torch.load(tmp_path / "ours.pt", mmap=True)["w"].tolist() == list(np.arange(1000.0))
    mapped = dyngrad.load(tmp_path / "theirs.pt", mmap=True)["w"]
    assert mapped.tolist() == list(np.arange(1.0, 1000.0))


def test_state_dict_metadata_survives_both_ways(libs, tmp_path):
    saver, loader = libs
    sd = _model(saver).state_dict()
    saver.save(sd, tmp_path / "sd.pt")
    loaded = loader.load(tmp_path / "sd.pt")
    assert type(loaded) is collections.OrderedDict
    assert loaded._metadata == sd._metadata
    _model(loader).load_state_dict(loaded)


def test_records_past_the_zip64_limit_stay_aligned(torch, tmp_path, monkeypatch):
    # a model over 4 GiB has zip64 records, whose local header zipfile lengthens: a stand-in
    # limit of 1000 bytes makes them of a 4000-byte storage
    monkeypatch.setattr(zipfile, "ZIP64_LIMIT", 1000)
    dyngrad.save({"w": dyngrad.arange(1000.0), "v": dyngrad.ones(3)}, tmp_path / "big.pt")
    monkeypatch.undo()
    assert all(start % 64 == 0 for _, start in _records(tmp_path / "big.pt"))
    for loaded in (torch.load(tmp_path / "big.pt"), dyngrad.load(tmp_path / "big.pt", mmap=True)):
        assert loaded["w"].tolist() == list(np.arange(1000.0)) and loaded["v"].tolist() == [1] * 3
