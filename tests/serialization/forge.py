"""Hand-made checkpoint files: pickles assembled opcode by opcode, in torch.save's zip layout."""

from __future__ import annotations

import pickle
import struct
import zipfile

import numpy as np

import dyngrad


def program(*parts: bytes) -> bytes:
    """A protocol-2 pickle of `parts`, ended by STOP."""
    return pickle.PROTO + b"\x02" + b"".join(parts) + pickle.STOP


def glob(module: str, name: str) -> bytes:
    return pickle.GLOBAL + f"{module}\n{name}\n".encode()


def text(value: str) -> bytes:
    raw = value.encode()
    return pickle.BINUNICODE + struct.pack("<I", len(raw)) + raw


def integer(value: int) -> bytes:
    if -(2**31) <= value < 2**31:
        return pickle.BININT + struct.pack("<i", value)
    raw = value.to_bytes((value.bit_length() + 8) // 8, "little", signed=True)
    return pickle.LONG1 + bytes([len(raw)]) + raw


def real(value: float) -> bytes:
    return pickle.BINFLOAT + struct.pack(">d", value)


def tup(*parts: bytes) -> bytes:
    return pickle.MARK + b"".join(parts) + pickle.TUPLE


def call(func: bytes, *args: bytes) -> bytes:
    return func + tup(*args) + pickle.REDUCE


def mapping(*pairs: tuple[bytes, bytes]) -> bytes:
    body = b"".join(k + v for k, v in pairs)
    return pickle.EMPTY_DICT + (pickle.MARK + body + pickle.SETITEMS if pairs else b"")


def slot_state(**attrs: bytes) -> bytes:
    """pickle's BUILD state (None, {attr: value}): setattr on the object, slots included."""
    return tup(pickle.NONE, mapping(*((text(k), v) for k, v in attrs.items())))


def storage(key: str, numel: int, kind: str = "FloatStorage", location: str = "cpu") -> bytes:
    pid = tup(text("storage"), glob("torch", kind), text(key), text(location), integer(numel))
    return pid + pickle.BINPERSID


def tensor(
    key: str,
    numel: int,
    size: tuple,
    stride: tuple,
    offset: int = 0,
    kind: str = "FloatStorage",
    requires_grad: bool = False,
    location: str = "cpu",
) -> bytes:
    """`torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks)`."""
    hooks = call(glob("collections", "OrderedDict"))
    return call(
        glob("torch._utils", "_rebuild_tensor_v2"),
        storage(key, numel, kind, location),
        integer(offset),
        tup(*map(integer, size)),
        tup(*map(integer, stride)),
        pickle.NEWTRUE if requires_grad else pickle.NEWFALSE,
        hooks,
    )


def write(
    path,
    pickled: bytes,
    records: dict | None = None,
    byteorder: str | None = "little",
    compression: int = zipfile.ZIP_STORED,
):
    """A torch.save-like zip at `path`: archive/data.pkl, archive/data/<key>, archive/byteorder."""
    with zipfile.ZipFile(path, "w", compression) as archive:
        archive.writestr("archive/data.pkl", pickled)
        if byteorder is not None:
            archive.writestr("archive/byteorder", byteorder)
        for key, raw in (records or {}).items():
            archive.writestr(f"archive/data/{key}", raw)
        archive.writestr("archive/version", "3\n")
    return path


CLEAN_VALUES = [1.5, -2.0, 0.25]


def write_clean(path):
    """A checkpoint {'w': float32 tensor CLEAN_VALUES}, as torch.save writes it."""
    pickled = program(mapping((text("w"), tensor("0", 3, (3,), (1,)))))
    return write(path, pickled, {"0": np.array(CLEAN_VALUES, "<f4").tobytes()})


def assert_nothing_poisoned(tmp_path) -> None:
    """What a hostile file must never change: dtypes, Size, device, NumPy, later loads."""
    for d in dyngrad.runtime.dtypes.DTYPES:
        assert d.itemsize == d.np.itemsize and repr(d) == f"torch.{d.name}"
    assert dyngrad.float32.itemsize == 4 and dyngrad.float32.np == np.float32
    assert repr(dyngrad.Size([2, 3])) == "torch.Size([2, 3])"
    assert dyngrad.device("cpu") == dyngrad.device("cpu")
    assert dyngrad.device("cpu") != dyngrad.device("meta")
    assert np.dtype("f8").byteorder == "=" and np.dtype("f8").str == "<f8"
    loaded = dyngrad.load(write_clean(tmp_path / "clean.pt"))["w"]
    assert loaded.dtype == dyngrad.float32 and loaded.tolist() == CLEAN_VALUES
    dyngrad.save({"w": dyngrad.tensor(CLEAN_VALUES)}, tmp_path / "own.pt")
    assert dyngrad.load(tmp_path / "own.pt")["w"].tolist() == CLEAN_VALUES


def patch_zip(path, method: int | None = None, claimed_size: int | None = None) -> None:
    """Rewrites every member's compression method and/or claimed (uncompressed) size."""
    data = bytearray(path.read_bytes())
    for signature, method_at, size_at in ((b"PK\x03\x04", 8, 22), (b"PK\x01\x02", 10, 24)):
        at = data.find(signature)
        while at >= 0:
            if method is not None:
                data[at + method_at : at + method_at + 2] = struct.pack("<H", method)
            if claimed_size is not None:
                data[at + size_at : at + size_at + 4] = struct.pack("<I", claimed_size)
            at = data.find(signature, at + 4)
    path.write_bytes(bytes(data))
