"""save/load: round trips, atomic writes, corrupt files, refused pickles, PyTorch checkpoints."""

from __future__ import annotations

import collections
import io
import json
import math
import os
import pathlib
import pickle
import subprocess
import sys
import zipfile

import numpy as np
import pytest

import dyngrad

DTYPES = [
    "float32",
    "float64",
    "float16",
    "bfloat16",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "bool",
    "complex64",
    "complex128",
]


def _roundtrip(obj, tmp_path):
    path = tmp_path / "x.pt"
    dyngrad.save(obj, path)
    return dyngrad.load(path)


@pytest.mark.parametrize("dtype", DTYPES)
def test_tensor_roundtrip_keeps_dtype_shape_and_values(tmp_path, dtype):
    dt = getattr(dyngrad, dtype if dtype != "bool" else "bool_")
    for t in (
        dyngrad.arange(12).reshape(3, 4).to(dt).t(),
        dyngrad.tensor(3).to(dt),
        dyngrad.zeros(0, 2, dtype=dt),
    ):
        back = _roundtrip(t, tmp_path)
        assert back.dtype == t.dtype and back.shape == t.shape
        assert back.tolist() == t.tolist() and back.is_contiguous()


def test_requires_grad_and_leafness_survive(tmp_path):
    w = dyngrad.randn(2, 2, requires_grad=True)
    y = w * 2
    back_w, back_y = _roundtrip([w, y.detach()], tmp_path)
    assert back_w.requires_grad and back_w.is_leaf and back_w.grad_fn is None
    assert not back_y.requires_grad


def test_parameters_load_as_parameters(tmp_path):
    Parameter = getattr(pytest.importorskip("dyngrad.nn"), "Parameter", None)
    if Parameter is None:
        pytest.skip("dyngrad.nn.Parameter is not there yet")
    p = Parameter(dyngrad.ones(2))
    back = _roundtrip({"p": p}, tmp_path)["p"]
    assert isinstance(back, Parameter) and back.requires_grad


def test_nested_containers_roundtrip(tmp_path):
    od = collections.OrderedDict([("z", dyngrad.ones(1)), ("a", dyngrad.zeros(2))])
    od._metadata = {"": {"version": 1}}
    obj = {
        "sd": od,
        3: [1, 2.0, True, None, "s", b"\x00\xff"],
        (1, "k"): (1.5, -0.0),
        "floats": [math.inf, -math.inf],
        "complex": 1 - 2j,
        "dtype": dyngrad.float16,
        "size": dyngrad.Size([2, 3]),
        "device": dyngrad.device("cpu"),
        "set": {1, 2},
        "frozen": frozenset({"a"}),
        "np": np.arange(3, dtype=np.uint16),
        "npscalar": np.float64(2.5),
        "big": 2**70,
    }
    back = _roundtrip(obj, tmp_path)
    assert list(back) == list(obj)
    assert list(back["sd"]) == ["z", "a"] and back["sd"]._metadata == od._metadata
    assert type(back["sd"]) is collections.OrderedDict
    for key in (3, (1, "k"), "floats", "complex", "dtype", "set", "frozen", "big"):
        assert back[key] == obj[key] and type(back[key]) is type(obj[key])
    assert type(back[3][1]) is float and type(back[3][0]) is int
    assert back["size"] == dyngrad.Size([2, 3]) and isinstance(back["size"], dyngrad.Size)
    assert back["device"] == dyngrad.device("cpu")
    assert back["np"].dtype == np.uint16 and back["np"].tolist() == [0, 1, 2]
    assert back["npscalar"] == 2.5 and isinstance(back["npscalar"], np.float64)
    assert math.isnan(_roundtrip([math.nan], tmp_path)[0])


def test_a_tensor_saved_twice_loads_as_one(tmp_path):
    t = dyngrad.ones(3)
    a, b = _roundtrip([t, {"again": t}], tmp_path)
    assert a is b["again"]


def test_file_objects_and_pathlib_paths(tmp_path):
    buffer = io.BytesIO()
    dyngrad.save({"x": dyngrad.arange(3)}, buffer)
    buffer.seek(0)
    assert dyngrad.load(buffer)["x"].tolist() == [0, 1, 2]
    path = pathlib.Path(tmp_path) / "p.pth"
    dyngrad.save([1], path)
    with open(path, "rb") as handle:
        assert dyngrad.load(handle) == [1]


def test_optimizer_state_dict_roundtrip_resumes_training(tmp_path):
    w = dyngrad.tensor([1.0, -2.0], requires_grad=True)
    opt = dyngrad.optim.Adam([w], lr=0.1, amsgrad=True)
    for _ in range(3):
        opt.zero_grad()
        (w * w).sum().backward()
        opt.step()
    saved = _roundtrip({"w": w.detach().clone(), "opt": opt.state_dict()}, tmp_path)
    w2 = saved["w"].requires_grad_()
    opt2 = dyngrad.optim.Adam([w2], lr=0.1, amsgrad=True)
    opt2.load_state_dict(saved["opt"])
    for o, p in ((opt, w), (opt2, w2)):
        o.zero_grad()
        (p * p).sum().backward()
        o.step()
    assert w2.tolist() == w.tolist()
    assert opt2.state_dict()["param_groups"] == opt.state_dict()["param_groups"]


class Custom:
    pass


@pytest.mark.parametrize("obj", [Custom(), {"f": len}, [np.array(["str"])], object()])
def test_objects_that_are_not_data_are_refused(tmp_path, obj):
    with pytest.raises(TypeError, match="dyngrad.save cannot save an object of type"):
        dyngrad.save(obj, tmp_path / "bad.pt")
    assert not os.listdir(tmp_path)


def test_failed_write_leaves_the_old_file_and_no_temp(tmp_path, monkeypatch):
    path = tmp_path / "ckpt.pt"
    dyngrad.save({"epoch": 1}, path)

    def crash(*args):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="disk full"):
        dyngrad.save({"epoch": 2}, path)
    monkeypatch.undo()
    assert dyngrad.load(path) == {"epoch": 1}
    assert os.listdir(tmp_path) == ["ckpt.pt"]


def test_process_killed_mid_save_leaves_the_old_checkpoint(tmp_path):
    path = tmp_path / "ckpt.pt"
    dyngrad.save({"epoch": 1}, path)
    script = (
        "import os, sys, dyngrad\n"
        "os.fsync = lambda fd: os._exit(9)  # die once the bytes are written, before rename\n"
        "dyngrad.save({'epoch': 2, 'w': dyngrad.ones(1000)}, sys.argv[1])\n"
    )
    result = subprocess.run([sys.executable, "-c", script, str(path)], timeout=60)
    assert result.returncode == 9
    assert dyngrad.load(path) == {"epoch": 1}


def test_truncated_file_gives_a_clear_error(tmp_path):
    path = tmp_path / "cut.pt"
    dyngrad.save({"w": dyngrad.ones(100)}, path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(
        RuntimeError,
        match="PytorchStreamReader failed reading zip archive: failed finding central directory",
    ) as info:
        dyngrad.load(path)
    assert str(path) in str(info.value) and "truncated or corrupt" in str(info.value)


def test_corrupt_tensor_bytes_are_caught(tmp_path):
    path = tmp_path / "flip.pt"
    dyngrad.save({"w": dyngrad.arange(64.0)}, path)
    data = bytearray(path.read_bytes())
    at = data.index(np.arange(64.0, dtype=np.float32)[10:12].tobytes())
    data[at] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(RuntimeError, match=f"{path.name} is corrupt"):
        dyngrad.load(path)


def test_not_a_checkpoint(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_bytes(b"hello world" * 10)
    with pytest.raises(RuntimeError, match="neither a zip archive"):
        dyngrad.load(path)


def _torch_like_zip(path, payload: bytes):
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("archive/data.pkl", payload)
        archive.writestr("archive/version", "3\n")


class Evil:
    def __reduce__(self):
        return (os.system, ("touch pwned",))


@pytest.mark.parametrize(
    "payload",
    [
        lambda: pickle.dumps(Evil(), protocol=2),
        lambda: pickle.dumps({"x": Evil()}, protocol=2),
        lambda: b"cbuiltins\neval\n(V__import__('os').system('touch pwned')\ntR.",
        lambda: pickle.dumps(Custom(), protocol=2),
    ],
)
def test_malicious_pickles_are_refused_without_running(tmp_path, monkeypatch, payload):
    monkeypatch.chdir(tmp_path)
    _torch_like_zip(tmp_path / "evil.pt", payload())
    for weights_only in (True, False):
        with pytest.raises(pickle.UnpicklingError, match="Weights only load failed. "):
            dyngrad.load(tmp_path / "evil.pt", weights_only=weights_only)
    assert not (tmp_path / "pwned").exists()


def test_manifest_with_unknown_entries_is_corrupt(tmp_path):
    path = tmp_path / "odd.pt"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(
            "dyngrad/manifest.json",
            json.dumps(
                {"format": "dyngrad", "version": 1, "object": {"$call": "os.system"}, "tensors": []}
            ),
        )
    with pytest.raises(RuntimeError, match="odd.pt is corrupt: unknown entry"):
        dyngrad.load(path)


def test_loads_a_checkpoint_torch_saved(torch, tmp_path):
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model(torch.randn(5, 3)).sum().backward()
    opt.step()
    extras = {
        "view": torch.arange(10.0)[2::3],
        "t": torch.arange(6.0).reshape(2, 3).t(),
        "half": torch.ones(2, dtype=torch.bfloat16),
        "z": torch.zeros(2, dtype=torch.cfloat),
        "flags": torch.tensor([True, False]),
        "empty": torch.zeros(0, 3),
        "size": torch.Size([1, 2]),
        "dtype": torch.float64,
        "raw": b"ab",
        "param": model[0].weight,
        "epoch": 7,
        "acc": np.float64(0.5),
    }
    path = tmp_path / "from_torch.pth"
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), **extras}, path)
    ours = dyngrad.load(path)
    sd = model.state_dict()
    assert list(ours["model"]) == list(sd)
    for key, value in sd.items():
        assert ours["model"][key].tolist() == value.tolist()
        assert ours["model"][key].dtype.name == "float32"
    assert ours["opt"]["param_groups"] == opt.state_dict()["param_groups"]
    buf = opt.state_dict()["state"][0]["momentum_buffer"]
    assert ours["opt"]["state"][0]["momentum_buffer"].tolist() == buf.tolist()
    for key in ("view", "t", "half", "z", "flags", "empty"):
        assert ours[key].tolist() == extras[key].tolist() and ours[key].shape == extras[key].shape
    assert str(ours["half"].dtype) == "torch.bfloat16"
    assert ours["size"] == dyngrad.Size([1, 2]) and ours["dtype"] is dyngrad.float64
    assert ours["raw"] == b"ab" and ours["epoch"] == 7 and ours["acc"] == 0.5
    assert ours["param"].requires_grad and ours["param"].is_leaf


def test_torch_checkpoint_gives_the_same_outputs(torch, tmp_path):
    layer = torch.nn.Linear(4, 3)
    torch.save(layer.state_dict(), tmp_path / "lin.pt")
    sd = dyngrad.load(tmp_path / "lin.pt", map_location="cpu")
    x = np.random.default_rng(0).standard_normal((2, 4)).astype(np.float32)
    ours = dyngrad.tensor(x) @ sd["weight"].t() + sd["bias"]
    np.testing.assert_allclose(ours.numpy(), layer(torch.tensor(x)).detach().numpy(), rtol=1e-6)


def test_torch_object_pickles_are_refused(torch, tmp_path):
    torch.save(torch.nn.Linear(2, 2), tmp_path / "whole_model.pt")
    with pytest.raises(pickle.UnpicklingError, match="refers to `torch.nn.modules.linear.Linear`"):
        dyngrad.load(tmp_path / "whole_model.pt")


def test_legacy_torch_format_is_named(torch, tmp_path):
    torch.save({"w": torch.ones(2)}, tmp_path / "old.pt", _use_new_zipfile_serialization=False)
    with pytest.raises(RuntimeError, match="before PyTorch 1.6"):
        dyngrad.load(tmp_path / "old.pt")


def test_map_location_forms(tmp_path):
    path = tmp_path / "m.pt"
    dyngrad.save({"w": dyngrad.ones(2)}, path)
    assert dyngrad.load(path, map_location="cpu")["w"].device.type == "cpu"
    assert dyngrad.load(path, map_location={"cpu": "cpu"})["w"].tolist() == [1.0, 1.0]
    seen = []
    loaded = dyngrad.load(path, map_location=lambda t, loc: seen.append(loc) or t * 2)
    assert seen == ["cpu"] and loaded["w"].tolist() == [2.0, 2.0]


def test_cuda_tensors_without_cuda_ask_for_map_location(tmp_path):
    path = tmp_path / "gpu.pt"
    dyngrad.save({"w": dyngrad.ones(2)}, path)
    with zipfile.ZipFile(path) as archive:
        files = {n: archive.read(n) for n in archive.namelist()}
    manifest = json.loads(files["dyngrad/manifest.json"])
    manifest["tensors"][0]["device"] = "cuda:0"
    files["dyngrad/manifest.json"] = json.dumps(manifest).encode()
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    with pytest.raises(RuntimeError, match="Attempting to deserialize object on a CUDA device"):
        dyngrad.load(path)
    assert dyngrad.load(path, map_location="cpu")["w"].tolist() == [1.0, 1.0]


def test_safetensors_roundtrip(tmp_path):
    pytest.importorskip("safetensors")
    sd = {
        "w": dyngrad.randn(3, 2),
        "b": dyngrad.zeros(2, dtype=dyngrad.bfloat16),
        "i": dyngrad.arange(4),
    }
    path = tmp_path / "model.safetensors"
    dyngrad.save(sd, path)
    back = dyngrad.load(path)
    assert sorted(back) == sorted(sd)
    for key, value in sd.items():
        assert back[key].dtype == value.dtype and back[key].tolist() == value.tolist()
    from safetensors.numpy import load_file

    assert load_file(str(path))["w"].tolist() == sd["w"].tolist()
    with pytest.raises(TypeError, match="flat dict of str -> Tensor"):
        dyngrad.save({"nested": {"w": dyngrad.ones(1)}}, tmp_path / "bad.safetensors")


def test_loads_safetensors_written_by_the_library(tmp_path):
    numpy_api = pytest.importorskip("safetensors.numpy")
    numpy_api.save_file({"emb": np.eye(3, dtype=np.float16)}, str(tmp_path / "hub_model.bin"))
    back = dyngrad.load(tmp_path / "hub_model.bin")  # found by its header, not its name
    assert back["emb"].dtype == dyngrad.float16 and back["emb"].tolist() == np.eye(3).tolist()


def test_torch_state_dict_loads_into_a_dyngrad_model(torch, tmp_path):
    nn = pytest.importorskip("dyngrad.nn")
    if not hasattr(nn, "Conv2d"):
        pytest.skip("dyngrad.nn is not complete yet")

    def build(t):
        return t.nn.Sequential(
            t.nn.Conv2d(1, 2, 3),
            t.nn.BatchNorm2d(2),
            t.nn.ReLU(),
            t.nn.Flatten(),
            t.nn.Linear(2 * 4 * 4, 3),
        )

    theirs = build(torch)
    theirs.train()
    theirs(torch.randn(4, 1, 6, 6))  # move the BatchNorm running statistics
    theirs.eval()
    torch.save(theirs.state_dict(), tmp_path / "cnn.pt")
    ours = build(dyngrad)
    ours.load_state_dict(dyngrad.load(tmp_path / "cnn.pt"))
    ours.eval()
    dyngrad.save(ours.state_dict(), tmp_path / "again.pt")
    ours.load_state_dict(dyngrad.load(tmp_path / "again.pt"))
    x = np.random.default_rng(0).standard_normal((2, 1, 6, 6)).astype(np.float32)
    np.testing.assert_allclose(
        ours(dyngrad.tensor(x)).detach().numpy(),
        theirs(torch.tensor(x)).detach().numpy(),
        rtol=1e-5,
        atol=1e-6,
    )
