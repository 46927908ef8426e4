"""PyTorch's checkpoints read without torch: values, shared storages, limits, damaged files."""

from __future__ import annotations

import os
import pickle
import re
import zipfile

import numpy as np
import pytest

import dyngrad

from .forge import (
    CLEAN_VALUES,
    assert_nothing_poisoned,
    integer,
    mapping,
    patch_zip,
    program,
    real,
    tensor,
    text,
    tup,
    write,
    write_clean,
)

EXPANDED_WRITE = "unsupported operation: more than one element of the written-to tensor"


class Custom:
    pass


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
    write(tmp_path / "evil.pt", payload())
    for weights_only in (None, True):
        with pytest.raises(pickle.UnpicklingError, match="Weights only load failed. "):
            dyngrad.load(tmp_path / "evil.pt", weights_only=weights_only)
    # as torch's, the environment can force weights_only loads, whatever the call says
    monkeypatch.setenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "1")
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed. "):
        dyngrad.load(tmp_path / "evil.pt", weights_only=False)
    assert not (tmp_path / "pwned").exists()


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
    match = "GLOBAL torch.nn.modules.linear.Linear was not an allowed global by default"
    with pytest.raises(pickle.UnpicklingError, match=match):
        dyngrad.load(tmp_path / "whole_model.pt")


def test_legacy_torch_format_is_named(torch, tmp_path):
    torch.save({"w": torch.ones(2)}, tmp_path / "old.pt", _use_new_zipfile_serialization=False)
    with pytest.raises(RuntimeError, match="before PyTorch 1.6"):
        dyngrad.load(tmp_path / "old.pt")


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


# ---- storages shared, as in torch ------------------------------------------------------------


def test_tensors_of_one_storage_share_memory(tmp_path):
    pickled = program(
        mapping(
            (text("a"), tensor("0", 10, (10,), (1,))),
            (text("b"), tensor("0", 10, (3,), (3,), offset=2)),
            (text("t"), tensor("0", 10, (5, 2), (1, 5))),
        )
    )
    records = {"0": np.arange(10, dtype="<f4").tobytes()}
    out = dyngrad.load(write(tmp_path / "views.pt", pickled, records))
    assert out["b"].tolist() == [2.0, 5.0, 8.0] and out["t"].stride() == (1, 5)
    assert out["t"].tolist() == np.arange(10.0).reshape(2, 5).T.tolist()
    out["a"].add_(1)
    assert out["b"].tolist() == [3.0, 6.0, 9.0] and out["t"][0].tolist() == [1.0, 6.0]
    out["b"].mul_(0)
    assert out["a"].tolist()[:4] == [1.0, 2.0, 0.0, 4.0]


def test_views_share_memory_as_torch_load_gives_them(torch, tmp_path):
    x = torch.arange(10.0)
    torch.save(
        {"a": x, "b": x[2::3], "t": x.view(2, 5).t(), "e": torch.ones(1).expand(5)},
        tmp_path / "views.pt",
    )
    theirs, ours = torch.load(tmp_path / "views.pt"), dyngrad.load(tmp_path / "views.pt")
    for out in (theirs, ours):
        out["a"].add_(1)
        out["t"][1].mul_(-1)
        with pytest.raises(RuntimeError, match=EXPANDED_WRITE):
            out["e"].add_(1)
    for key in theirs:
        assert ours[key].tolist() == theirs[key].tolist()
        assert ours[key].stride() == theirs[key].stride()


def test_an_expanded_tensor_loads_as_a_view_whatever_size_it_claims(tmp_path):
    # ~1 KB files that asked a copying loader for 4 TiB (2**40 float32) and 4 EiB
    for size, stride in (((2**40,), (0,)), ((2**29, 2**31), (0, 0))):
        pickled = program(tensor("0", 1, size, stride))
        path = write(tmp_path / "expanded.pt", pickled, {"0": np.float32(1.5).tobytes()})
        assert path.stat().st_size < 2048
        out = dyngrad.load(path)
        assert tuple(out.shape) == size and out.stride() == stride
        assert out[(2**29 - 1,) * len(size)].item() == 1.5
    small = dyngrad.load(
        write(
            tmp_path / "small.pt",
            program(tensor("0", 1, (4,), (0,))),
            {"0": np.float32(1.5).tobytes()},
        )
    )
    with pytest.raises(RuntimeError, match=EXPANDED_WRITE):
        small.add_(1)  # (dyngrad computes an in-place op before it writes: keep it small)


@pytest.mark.parametrize("numel", [2**60, 2, -1])
def test_a_storage_must_be_as_large_as_its_record(tmp_path, numel):
    pickled = program(tensor("0", numel, (1,), (1,)))
    path = write(tmp_path / "numel.pt", pickled, {"0": bytes(12)})
    expected = (
        f"record size (12 bytes) does not match expected size ({numel * 4} bytes = {numel} "
        "elements * 4 bytes/element) for dtype Float (" + str(path) + " is corrupt: data/0)"
    )
    with pytest.raises(RuntimeError) as info:
        dyngrad.load(path)
    assert str(info.value) == expected


BAD_GEOMETRY = {
    "negative size": ((-5,), (1,), 0, "must be non-negative"),
    "negative stride": ((2,), (-1,), 2, "must be non-negative"),
    "negative offset": ((1,), (1,), -1, "must be non-negative"),
    "sizes and strides disagree": ((1, 1), (1,), 0, "it has 2 sizes, 1 strides"),
    "65 dimensions": ((1,) * 65, (1,) * 65, 0, "it has 65 sizes, 65 strides (at most 64)"),
    "2**80 elements": ((2**40, 2**40), (0, 0), 0, "more bytes than any array can"),
    "2**62 float32 elements": ((2**31, 2**31), (0, 0), 0, "more bytes than any array can"),
    "a stride of 2**70": ((1,), (2**70,), 0, "more bytes than any array can"),
}


@pytest.mark.parametrize("case", list(BAD_GEOMETRY))
def test_impossible_geometry_is_refused_before_allocating(tmp_path, case):
    size, stride, offset, problem = BAD_GEOMETRY[case]
    pickled = program(tensor("0", 3, size, stride, offset))
    with pytest.raises(RuntimeError, match="geometry.pt is corrupt: a tensor of sizes") as info:
        dyngrad.load(write(tmp_path / "geometry.pt", pickled, {"0": bytes(12)}))
    assert problem in str(info.value)


def test_a_size_that_is_not_an_int_is_refused(tmp_path):
    bad = tensor("0", 3, (3,), (1,)).replace(tup(integer(3)), tup(real(3.0)), 1)
    with pytest.raises(RuntimeError, match="must be ints"):
        dyngrad.load(write(tmp_path / "float.pt", program(bad), {"0": bytes(12)}))


@pytest.mark.parametrize(
    "size, stride, offset, needs",
    [((4,), (1,), 0, 16), ((1,), (1,), 3, 16), ((2, 2), (2, 1), 0, 16), ((2,), (3,), 0, 16)],
)
def test_a_tensor_must_fit_in_its_storage(tmp_path, size, stride, offset, needs):
    pickled = program(tensor("0", 3, size, stride, offset))
    path = write(tmp_path / "outside.pt", pickled, {"0": bytes(12)})
    with pytest.raises(RuntimeError) as info:
        dyngrad.load(path)
    assert str(info.value) == (
        f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and "
        f"itemsize 4 requiring a storage size of {needs} are out of bounds for storage of "
        f"size 12 ({path} is corrupt)"
    )


def test_one_storage_read_as_two_types_is_refused(tmp_path):
    pickled = program(
        tup(tensor("0", 3, (3,), (1,)), tensor("0", 3, (3,), (1,), kind="IntStorage"))
    )
    with pytest.raises(pickle.UnpicklingError, match="storage 0 is used with two different"):
        dyngrad.load(write(tmp_path / "twice.pt", pickled, {"0": bytes(12)}))


def test_a_missing_record_is_named(tmp_path):
    path = write(tmp_path / "missing.pt", program(tensor("7", 3, (3,), (1,))))
    with pytest.raises(RuntimeError, match="failed locating file data/7: file not found"):
        dyngrad.load(path)


def test_big_endian_checkpoints_load(tmp_path):
    pickled = program(
        tup(tensor("0", 3, (3,), (1,)), tensor("1", 2, (2,), (1,), kind="LongStorage"))
    )
    records = {
        "0": np.array(CLEAN_VALUES, ">f4").tobytes(),
        "1": np.array([1, -2], ">i8").tobytes(),
    }
    floats, longs = dyngrad.load(write(tmp_path / "be.pt", pickled, records, byteorder="big"))
    assert floats.tolist() == CLEAN_VALUES and longs.tolist() == [1, -2]


@pytest.mark.parametrize("byteorder", ["middle", "", "little\n"])
def test_an_unknown_byte_order_is_refused(tmp_path, byteorder):
    path = write_clean(tmp_path / "order.pt")
    with zipfile.ZipFile(path) as archive:
        files = {n: archive.read(n) for n in archive.namelist()}
    write(path, files["archive/data.pkl"], {"0": files["archive/data/0"]}, byteorder=byteorder)
    with pytest.raises(RuntimeError) as info:
        dyngrad.load(path)
    assert str(info.value) == (
        f"Unknown endianness type: {byteorder!r}. {path} is corrupt: its byteorder record "
        "must say little or big."
    )


def test_map_location_callables_get_each_storage_once(tmp_path):
    pickled = program(tup(tensor("0", 3, (3,), (1,)), tensor("0", 3, (2,), (1,), offset=1)))
    path = write(tmp_path / "map.pt", pickled, {"0": np.array(CLEAN_VALUES, "<f4").tobytes()})
    seen = []
    a, b = dyngrad.load(path, map_location=lambda s, loc: seen.append((s.shape, loc)) or s * 2)
    assert seen == [((3,), "cpu")] and b.tolist() == [-4.0, 0.5]
    a.add_(1)
    assert b.tolist() == [-3.0, 1.5]


# ---- zip archives ----------------------------------------------------------------------------


def _both_formats(tmp_path, compression=zipfile.ZIP_STORED):
    torch_like = write_clean(tmp_path / "torch_like.pt")
    with zipfile.ZipFile(torch_like) as archive:
        files = {n: archive.read(n) for n in archive.namelist()}
    write(
        torch_like,
        files["archive/data.pkl"],
        {"0": files["archive/data/0"]},
        compression=compression,
    )
    ours = tmp_path / "ours.pt"
    dyngrad.save({"w": dyngrad.tensor(CLEAN_VALUES)}, ours)
    with zipfile.ZipFile(ours) as archive:
        files = {n: archive.read(n) for n in archive.namelist()}
    with zipfile.ZipFile(ours, "w", compression) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return torch_like, ours


def test_deflated_checkpoints_load(tmp_path):
    for path in _both_formats(tmp_path, zipfile.ZIP_DEFLATED):
        assert dyngrad.load(path)["w"].tolist() == CLEAN_VALUES


@pytest.mark.parametrize("method", [zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA, 99])
def test_unsupported_compression_gives_one_clear_error(tmp_path, method):
    for path in _both_formats(tmp_path):
        patch_zip(path, method=method)
        with pytest.raises(RuntimeError) as info:
            dyngrad.load(path)
        message = str(info.value)
        assert message.startswith("PytorchStreamReader failed retrieving file meta-data for ")
        assert (
            f"unsupported method. {path} is corrupt, or compressed with zip method {method}"
            in message
        )


def test_a_member_claiming_more_than_it_can_inflate_to_is_refused(tmp_path):
    for path in _both_formats(tmp_path, zipfile.ZIP_DEFLATED):
        patch_zip(path, claimed_size=2**31 - 1)
        match = f"{re.escape(str(path))} is corrupt: its member .* claims "
        with pytest.raises(RuntimeError, match=match):
            dyngrad.load(path)
    assert_nothing_poisoned(tmp_path)


def test_legacy_torch_files_without_torch(tmp_path):
    path = tmp_path / "legacy.pt"
    path.write_bytes(pickle.dumps({"w": 1}, protocol=2))
    with pytest.raises(RuntimeError, match="before PyTorch 1.6") as info:
        dyngrad.load(path)
    assert os.fspath(path) in str(info.value)


def test_loaded_tensors_keep_torchs_strides(torch, tmp_path):
    path = tmp_path / "strides.pt"
    torch.save([torch.ones(1), torch.zeros(1, 1, 3), torch.arange(6.0).reshape(2, 3)[:, :1]], path)
    ours = dyngrad.load(path)
    theirs = torch.load(path)
    assert [t.stride() for t in ours] == [t.stride() for t in theirs]
    assert [t.tolist() for t in ours] == [t.tolist() for t in theirs]


class _Custom:
    pass


def test_unsafe_globals_are_listed_as_torch(torch, tmp_path):
    path = tmp_path / "unsafe.pt"
    torch.save({"w": torch.ones(2), "p": torch.nn.Parameter(torch.ones(1)), "c": _Custom()}, path)
    expected = torch.serialization.get_unsafe_globals_in_checkpoint(path)
    assert dyngrad.serialization.get_unsafe_globals_in_checkpoint(path) == expected
    assert expected == [f"{__name__}._Custom"]
    with dyngrad.serialization.safe_globals([_Custom]):
        assert dyngrad.serialization.get_unsafe_globals_in_checkpoint(path) == []
