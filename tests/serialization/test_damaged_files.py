"""Damaged checkpoints (dyngrad's and its earlier format's): one clear error naming the file."""

from __future__ import annotations

import collections
import copy
import io
import json
import math
import zipfile

import numpy as np
import pytest

import dyngrad

from .legacy import MANIFEST, save_legacy


def _files(obj) -> dict:
    """The records of `obj` saved in dyngrad's earlier format (dyngrad/manifest.json)."""
    buffer = io.BytesIO()
    save_legacy(obj, buffer)
    with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as archive:
        return {n: archive.read(n) for n in archive.namelist()}


def _archive(files: dict, manifest=None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            if name == MANIFEST and manifest is not None:
                data = manifest if isinstance(manifest, (str, bytes)) else json.dumps(manifest)
            archive.writestr(name, data)
    return buffer.getvalue()


def _load(data: bytes, name: str = "fuzz.pt"):
    handle = io.BytesIO(data)
    handle.name = name
    return dyngrad.load(handle)


def _manifest(files: dict) -> dict:
    return json.loads(files[MANIFEST])


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


@pytest.mark.parametrize(
    "dtype",
    ["float128", "complex256", "longdouble", "<U3", "str", "datetime64[s]", "object", "V8", "?"],
)
def test_unsupported_dtypes_are_refused_at_load(dtype):
    files = _files({"w": dyngrad.ones(2)})
    manifest = _manifest(files)
    manifest["tensors"][0]["dtype"] = dtype
    with pytest.raises(RuntimeError) as info:
        _load(_archive(files, manifest), "odd.pt")
    assert str(info.value).startswith(
        f"odd.pt: tensor 0 has dtype {dtype!r}, which dyngrad does not load (it loads bool, "
    )


def test_numpy_dtypes_that_are_not_tensor_dtypes_are_refused_for_tensors():
    files = _files({"w": dyngrad.ones(2, dtype=dyngrad.int16), "n": np.ones(2, np.uint16)})
    manifest = _manifest(files)
    manifest["tensors"][0]["dtype"] = "uint16"  # a NumPy array may be uint16, a tensor not
    with pytest.raises(RuntimeError, match="tensor 0 has dtype 'uint16', which dyngrad does not"):
        _load(_archive(files, manifest))
    assert _load(_archive(files))["n"].dtype == np.uint16


def test_deeply_nested_manifests_are_refused():
    files = _files([1])
    deep = '{"format": "dyngrad", "version": 1, "tensors": [], "object": ' + "[" * 100_000
    with pytest.raises(RuntimeError, match="fuzz.pt is corrupt: the manifest is nested too deeply"):
        _load(_archive(files, deep))
    node = 1
    for _ in range(150):
        node = {"$list": [node]}
    manifest = {"format": "dyngrad", "version": 1, "tensors": [], "object": node}
    with pytest.raises(RuntimeError, match="nests containers more than 100 deep"):
        _load(_archive(files, manifest))


@pytest.mark.parametrize(
    "change, problem",
    [
        (lambda m: m.update(version=2), "unknown checkpoint format 'dyngrad' version 2; a newer"),
        (lambda m: m.update(version="1"), "the manifest's version is '1'"),
        (lambda m: m.pop("tensors"), "the manifest has no 'tensors'"),
        (lambda m: m.update(object={"$tensor": 5}), "$tensor 5 is not one of the 1 tensors"),
        (lambda m: m.update(object={"$tensor": True}), "$tensor True is not one of the 1"),
        (lambda m: m["tensors"][0].update(shape=[-3]), "shape [-3] is not a list of sizes"),
        (lambda m: m["tensors"][0].update(shape=[4]), "needs 16 bytes, the file holds 12"),
        (lambda m: m["tensors"][0].update(shape=[10**18]), "needs 4000000000000000000 bytes"),
        (lambda m: m["tensors"][0].update(shape=[10**20]), "shape [100000000000000000000] is"),
        (lambda m: m["tensors"][0].update(dtype="int8"), "needs 3 bytes, the file holds 12"),
        (lambda m: m["tensors"][0].update(kind="pickle"), "tensor 0 is of unknown kind 'pickle'"),
        (lambda m: m["tensors"][0].pop("device"), "tensor 0 has no 'device'"),
        (lambda m: m["tensors"][0].update(device="toaster"), "'toaster' is not a device"),
        (lambda m: m["tensors"].append([]), "tensor 1 is [], not an object"),
        (lambda m: m.update(object={"$set": [{"$list": []}]}), "$set holds an unhashable list"),
        (lambda m: m.update(object={"$dict": [[1]]}), "$dict holds [1], not a [key, value]"),
        (lambda m: m.update(object={"$complex": [10**400, 0]}), "$complex holds [1000000"),
        (lambda m: m.update(object={"$bytes": "!!"}), "$bytes holds '!!'"),
        (lambda m: m.update(object={"$dtype": "float128"}), "$dtype holds 'float128'"),
        (lambda m: m.update(object={"$list": [], "$tuple": []}), "unknown entry ['$list', '$"),
        (lambda m: m.update(object=[1, 2]), "unknown entry [1, 2] in the manifest"),
    ],
)
def test_damaged_manifests_say_what_is_wrong(change, problem):
    files = _files(dyngrad.tensor([1.0, 2.0, 3.0]))
    manifest = _manifest(files)
    change(manifest)
    with pytest.raises(RuntimeError, match="fuzz.pt is corrupt: ") as info:
        _load(_archive(files, manifest))
    assert problem in str(info.value)


def test_requires_grad_on_integers_is_refused():
    files = _files(dyngrad.tensor([1, 2]))
    manifest = _manifest(files)
    manifest["tensors"][0]["requires_grad"] = True
    with pytest.raises(RuntimeError, match="tensor 0 of dtype int64 cannot require grad"):
        _load(_archive(files, manifest))


# ---- fuzzing ---------------------------------------------------------------------------------


def _fuzz_object():
    w = dyngrad.randn(2, 2, requires_grad=True)
    state = collections.OrderedDict(w=w, b=dyngrad.arange(3))
    state._metadata = {"": {"version": 1}}
    return {
        "sd": state,
        "again": w,
        "n": np.arange(3, dtype=np.uint16),
        "s": np.float64(2.5),
        "list": [1, 2.5, None, "x", True, math.inf],
        "tuple": (1, (2,)),
        "set": {1},
        "frozen": frozenset({"a"}),
        "size": dyngrad.Size([2, 3]),
        "dtype": dyngrad.float16,
        "device": dyngrad.device("cpu"),
        "complex": 1 - 2j,
        "bytes": b"ab",
    }


def _paths(node, path=()):
    yield path
    children = (
        node.items()
        if isinstance(node, dict)
        else enumerate(node)
        if isinstance(node, list)
        else ()
    )
    for key, child in children:
        yield from _paths(child, path + (key,))


def _replace(manifest, path, value):
    out = copy.deepcopy(manifest)
    parent = out
    for key in path[:-1]:
        parent = parent[key]
    if value is _DELETE:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return out


_DELETE = object()
_WRONG = [
    _DELETE,
    None,
    True,
    -1,
    0,
    7,
    2**70,
    10**400,
    1.5,
    "x",
    [],
    {},
    [[]],
    [-1],
    {"$tensor": 9},
]


def _assert_loads_or_names_the_file(files, manifest):
    try:
        _load(_archive(files, manifest))
    except RuntimeError as exc:
        assert "fuzz.pt" in str(exc), exc


def test_fuzzed_manifests_load_or_raise_one_clear_error():
    files = _files(_fuzz_object())
    manifest = _manifest(files)
    paths = [p for p in _paths(manifest) if p]
    for path in paths:  # every position, every wrong type (and no value at all)
        for value in _WRONG:
            _assert_loads_or_names_the_file(files, _replace(manifest, path, value))
    rng = np.random.default_rng(0)
    for _ in range(300):  # several changes at once
        mutated = manifest
        for _ in range(int(rng.integers(2, 5))):
            live = [p for p in _paths(mutated) if p]
            path = live[int(rng.integers(len(live)))]
            mutated = _replace(mutated, path, _WRONG[int(rng.integers(len(_WRONG)))])
        _assert_loads_or_names_the_file(files, mutated)
    for record in [n for n in files if n != MANIFEST]:  # a record missing or cut short
        for damaged in ({k: v for k, v in files.items() if k != record}, {**files, record: b"\0"}):
            _assert_loads_or_names_the_file(damaged, manifest)
