"""save/load round trips: dtypes, containers, parameters, map_location, whole objects, safetensors."""

from __future__ import annotations

import collections
import io
import json
import math
import os
import pathlib
import pickle
import zipfile

import numpy as np
import pytest

import dyngrad

from .forge import mapping, program, text, write
from .forge import tensor as storage_tensor
from .legacy import MANIFEST, save_legacy

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
        assert back.tolist() == t.tolist() and back.stride() == t.stride()


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
    def __init__(self) -> None:
        self.weight = dyngrad.ones(2)


@pytest.mark.parametrize("obj", [Custom(), {"f": len}, [np.array(["str"])], object()])
def test_objects_that_are_not_data_load_only_from_files_one_trusts(tmp_path, obj):
    path = tmp_path / "objects.pt"
    dyngrad.save(obj, path)  # pickled, as torch.save pickles them
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed. ") as info:
        dyngrad.load(path)
    assert "was not an allowed global by default" in str(info.value)
    back = dyngrad.load(path, weights_only=False)
    assert type(back) is type(obj)
    if isinstance(obj, Custom):
        assert back.weight.tolist() == [1.0, 1.0]


def test_unpicklable_objects_fail_before_the_file_is_touched(tmp_path):
    path = tmp_path / "model.pt"
    dyngrad.save({"w": dyngrad.ones(1)}, path)
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        dyngrad.save({"f": lambda: 1}, path)
    assert dyngrad.load(path)["w"].tolist() == [1.0] and os.listdir(tmp_path) == ["model.pt"]


def test_map_location_forms(tmp_path):
    path = tmp_path / "m.pt"
    dyngrad.save({"w": dyngrad.ones(2)}, path)
    assert dyngrad.load(path, map_location="cpu")["w"].device.type == "cpu"
    assert dyngrad.load(path, map_location={"cpu": "cpu"})["w"].tolist() == [1.0, 1.0]
    seen = []
    loaded = dyngrad.load(path, map_location=lambda t, loc: seen.append(loc) or t * 2)
    assert seen == ["cpu"] and loaded["w"].tolist() == [2.0, 2.0]


def test_cuda_tensors_without_cuda_ask_for_map_location(tmp_path):
    pickled = program(mapping((text("w"), storage_tensor("0", 2, (2,), (1,), location="cuda:0"))))
    torch_format = write(tmp_path / "gpu.pt", pickled, {"0": np.ones(2, "<f4").tobytes()})
    buffer = io.BytesIO()
    save_legacy({"w": dyngrad.ones(2)}, buffer)
    with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as archive:
        files = {n: archive.read(n) for n in archive.namelist()}
    manifest = json.loads(files[MANIFEST])
    manifest["tensors"][0]["device"] = "cuda:0"
    files[MANIFEST] = json.dumps(manifest).encode()
    earlier_format = tmp_path / "gpu_earlier.pt"
    with zipfile.ZipFile(earlier_format, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    for path in (torch_format, earlier_format):
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


NUMPY_ARRAYS = {
    "be": np.arange(4, dtype=">f4"),
    "be_int": np.array([1, -2], dtype=">i8"),
    "u16": np.arange(3, dtype=np.uint16),
    "u64": np.array([2**64 - 1], dtype=np.uint64),
    "longdouble": np.ones(2, np.longdouble),
    "datetime64": np.array(["2020-01-01"], "datetime64[D]"),
}
NUMPY_GLOBALS = [np._core.multiarray._reconstruct, np.ndarray, np.dtype] + [
    type(array.dtype) for array in NUMPY_ARRAYS.values()
]


def test_numpy_arrays_load_as_torch_loads_them(tmp_path):
    # pickled by NumPy: refused by default, loaded when trusted or when NumPy's names are allowed
    path = tmp_path / "arrays.pt"
    dyngrad.save(NUMPY_ARRAYS, path)
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL numpy._core.multiarray._reconstruct"):
        dyngrad.load(path)
    with dyngrad.serialization.safe_globals(NUMPY_GLOBALS):
        allowed = dyngrad.load(path)
    for back in (dyngrad.load(path, weights_only=False), allowed):
        for key, array in NUMPY_ARRAYS.items():
            assert back[key].dtype == pickle.loads(pickle.dumps(array, 2)).dtype  # NumPy's doing
            assert back[key].tolist() == array.tolist()


def test_numpy_arrays_of_the_earlier_format_keep_their_values(tmp_path):
    arrays = {k: v for k, v in NUMPY_ARRAYS.items() if k not in ("longdouble", "datetime64")}
    save_legacy(arrays, tmp_path / "x.pt")
    back = dyngrad.load(tmp_path / "x.pt")
    for key, array in arrays.items():
        assert back[key].tolist() == array.tolist()
        assert back[key].dtype == array.dtype.newbyteorder("=")


def test_deep_and_self_containing_containers_roundtrip(tmp_path):
    deep: list = [1]
    for _ in range(200):
        deep = [deep]
    assert _roundtrip(deep, tmp_path) == deep
    loop: list = []
    loop.append(loop)
    back = _roundtrip({"loop": loop}, tmp_path)["loop"]
    assert back[0] is back
