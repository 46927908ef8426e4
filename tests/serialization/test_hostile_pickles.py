"""PyTorch checkpoints that try to run code or change shared objects: refused, nothing changed."""

from __future__ import annotations

import collections
import copyreg
import os
import pickle
import subprocess
import sys
import zipfile

import numpy as np
import pytest

import dyngrad
from dyngrad.runtime.device import device as Device
from dyngrad.runtime.dtypes import dtype as DType

from .forge import (
    assert_nothing_poisoned,
    call,
    glob,
    integer,
    mapping,
    program,
    slot_state,
    tensor,
    text,
    tup,
    write,
    write_clean,
)

ORDERED_DICT = glob("collections", "OrderedDict")

# Each case: a pickle that pickle.Unpickler (with an allowlist in find_class) would run to
# the harm named, and what dyngrad's refusal says.
POISONING = {
    "BUILD sets float32.itemsize": (
        glob("torch", "float32") + slot_state(itemsize=integer(2)) + pickle.BUILD,
        "BUILD on torch.float32, which this file did not make",
    ),
    "BUILD replaces Size.__repr__": (
        glob("torch", "Size") + slot_state(__repr__=glob("builtins", "set")) + pickle.BUILD,
        "BUILD on torch.Size, which this file did not make",
    ),
    "BUILD replaces device.__eq__": (
        glob("torch", "device") + slot_state(__eq__=glob("builtins", "set")) + pickle.BUILD,
        "BUILD on torch.device, which this file did not make",
    ),
    "BUILD remaps FloatStorage to int32 (slots)": (
        glob("torch", "FloatStorage") + slot_state(dtype=glob("torch", "int32")) + pickle.BUILD,
        "BUILD on torch.FloatStorage, which this file did not make",
    ),
    "BUILD remaps FloatStorage to int32 (__dict__)": (
        glob("torch", "FloatStorage")
        + mapping((text("dtype"), glob("torch", "int32")))
        + pickle.BUILD,
        "BUILD on torch.FloatStorage, which this file did not make",
    ),
    "BUILD through the memo": (
        glob("torch", "float32")
        + pickle.BINPUT
        + b"\x00"
        + pickle.POP
        + pickle.BINGET
        + b"\x00"
        + slot_state(itemsize=integer(8))
        + pickle.BUILD,
        "BUILD on torch.float32, which this file did not make",
    ),
    "BUILD on a tensor": (
        tensor("0", 3, (3,), (1,)) + slot_state(requires_grad=pickle.NEWTRUE) + pickle.BUILD,
        "Can only build OrderedDict, but got Tensor",
    ),
    "BUILD of dunder state on an OrderedDict": (
        call(ORDERED_DICT) + mapping((text("__class__"), glob("builtins", "set"))) + pickle.BUILD,
        "an OrderedDict's state may set only plain attribute names",
    ),
    "SETITEM on an allowed class": (
        ORDERED_DICT + text("k") + text("v") + pickle.SETITEM,
        "Can only SETITEM to a dict, OrderedDict, Counter this file made, but got collections.OrderedDict",
    ),
    "SETITEMS on a global through the memo": (
        glob("torch", "float32")
        + pickle.BINPUT
        + b"\x01"
        + pickle.POP
        + pickle.BINGET
        + b"\x01"
        + pickle.MARK
        + text("k")
        + text("v")
        + pickle.SETITEMS,
        "Can only SETITEMS to a dict, OrderedDict, Counter this file made, but got torch.float32",
    ),
    "APPEND to a global": (
        glob("torch", "Size") + integer(1) + pickle.APPEND,
        "Can only append to a list this file made, but got torch.Size",
    ),
    "APPENDS to a global": (
        glob("torch", "Size") + pickle.MARK + integer(1) + pickle.APPENDS,
        "Can only append to a list this file made, but got torch.Size",
    ),
    "ADDITEMS to a global": (
        glob("builtins", "set") + pickle.MARK + integer(1) + pickle.ADDITEMS,
        "Can only ADDITEMS to a set this file made, but got builtins.set",
    ),
}


@pytest.mark.parametrize("case", list(POISONING))
def test_files_cannot_change_shared_objects(tmp_path, case):
    pickled, message = POISONING[case]
    path = write(tmp_path / "hostile.pt", program(pickled), {"0": bytes(12)})
    before = {cls: dict(vars(cls)) for cls in (dyngrad.Size, Device, DType, dyngrad.Tensor)}
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed. ") as info:
        dyngrad.load(path)
    assert message in str(info.value) and "hostile.pt" in str(info.value)
    assert {cls: dict(vars(cls)) for cls in before} == before
    assert_nothing_poisoned(tmp_path)


REFUSED_OPCODES = {
    "INST": (b"ios\nsystem\n", "Unsupported operand 105 (INST)"),
    "OBJ": (pickle.MARK + glob("torch", "Size") + pickle.OBJ, "Unsupported operand 111 (OBJ)"),
    "EXT1": (pickle.EXT1 + b"\xf0", "Unsupported operand 130 (EXT1)"),
    "EXT2": (pickle.EXT2 + b"\xf0\x00", "Unsupported operand 131 (EXT2)"),
    "EXT4": (pickle.EXT4 + b"\xf0\x00\x00\x00", "Unsupported operand 132 (EXT4)"),
    "text persistent id": (pickle.PERSID + b"0\n", "Unsupported operand 80 (PERSID)"),
    "out-of-band buffer": (pickle.NEXT_BUFFER, "Unsupported operand 151 (NEXT_BUFFER)"),
    "protocol 0 INT": (b"I1\n", "Unsupported operand 73 (INT)"),
    "persistent id that is not a storage": (
        text("module") + pickle.BINPERSID,
        "Only persistent_load of storage is allowed, but got str",
    ),
    "NEWOBJ of an allowed class": (
        ORDERED_DICT + pickle.EMPTY_TUPLE + pickle.NEWOBJ,
        "Can only create new object for nn.Parameter, but got collections.OrderedDict",
    ),
    "NEWOBJ_EX with keywords": (
        glob("torch.nn.parameter", "Parameter")
        + pickle.EMPTY_TUPLE
        + mapping((text("requires_grad"), pickle.NEWTRUE))
        + pickle.NEWOBJ_EX,
        "NEWOBJ_EX with keyword arguments",
    ),
    "REDUCE of a value": (
        call(glob("torch", "float32")),
        "Trying to call reduce for unrecognized function torch.float32",
    ),
    "_rebuild_from_type_v2 calling bytearray": (
        call(
            glob("torch._tensor", "_rebuild_from_type_v2"),
            glob("builtins", "bytearray"),
            glob("torch", "Tensor"),
            tup(integer(10**12)),
            pickle.NONE,
        ),
        "_rebuild_from_type_v2 of builtins.bytearray, which does not make a tensor",
    ),
    "pickle protocol 6": (pickle.PROTO + b"\x06", "pickle protocol 6 is not supported"),
}


@pytest.mark.parametrize("case", list(REFUSED_OPCODES))
def test_opcodes_that_call_or_import_are_refused(tmp_path, case):
    pickled, message = REFUSED_OPCODES[case]
    copyreg.add_extension("os", "system", 0xF0)  # EXT1 0xF0 would import os.system
    try:
        with pytest.raises(pickle.UnpicklingError, match="Weights only load failed. ") as info:
            dyngrad.load(write(tmp_path / "ops.pt", program(pickled)))
    finally:
        copyreg.remove_extension("os", "system", 0xF0)
    assert message in str(info.value)
    assert_nothing_poisoned(tmp_path)


@pytest.mark.parametrize(
    "global_",
    [
        ("torch", "float32.__class__"),
        ("torch._utils", "_rebuild_tensor_v2.__globals__"),
        ("builtins", "getattr"),
        ("__builtin__", "eval"),
        ("numpy.core.multiarray", "_reconstruct"),
        ("torch", "load"),
        ("os", "system"),
    ],
)
def test_names_outside_the_allowlist_are_refused(tmp_path, global_):
    path = write(tmp_path / "name.pt", program(glob(*global_)))
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed. ") as info:
        dyngrad.load(path)
    name = ".".join(global_)  # read as Python 3 and NumPy 2 name them
    name = name.replace("__builtin__", "builtins").replace("numpy.core", "numpy._core")
    assert f"Unsupported global: GLOBAL {name} was not an allowed global by default" in str(
        info.value
    )
    assert f"{path} can still be loaded" in str(info.value)


def test_stack_global_needs_strings(tmp_path):
    pickled = program(integer(1) + text("system") + pickle.STACK_GLOBAL)
    with pytest.raises(pickle.UnpicklingError, match="STACK_GLOBAL needs two strings"):
        dyngrad.load(write(tmp_path / "sg.pt", pickled))


HOSTILE_ARGUMENTS = {
    "bytearray(10**12) would allocate a terabyte": call(
        glob("builtins", "bytearray"), integer(10**12)
    ),
    "_codecs.encode with another codec": call(
        glob("_codecs", "encode"), text("x"), text("zlib_codec")
    ),
    "torch.Size of strings": call(glob("torch", "Size"), tup(text("a"))),
    "numpy.dtype('O')": call(glob("numpy", "dtype"), text("O"), pickle.NEWFALSE, pickle.NEWTRUE),
    "numpy.dtype of a list": call(
        glob("numpy", "dtype"), pickle.EMPTY_LIST, pickle.NEWFALSE, pickle.NEWTRUE
    ),
    "numpy scalar of the wrong size": call(
        glob("numpy.core.multiarray", "scalar"),
        call(glob("numpy", "dtype"), text("f8"), pickle.NEWFALSE, pickle.NEWTRUE),
        call(glob("_codecs", "encode"), text("abc"), text("latin1")),
    ),
    "complex of a string": call(glob("builtins", "complex"), text("1+2j")),
    "set of an unhashable": call(
        glob("builtins", "set"), pickle.EMPTY_LIST + pickle.EMPTY_LIST + pickle.APPEND
    ),
    "OrderedDict of a string": call(ORDERED_DICT, text("ab")),
    "torch.device of an int": call(glob("torch", "device"), integer(3)),
    "torch.device of an unknown type": call(glob("torch", "device"), text("toaster")),
    "_rebuild_parameter of a dtype": call(
        glob("torch._utils", "_rebuild_parameter"),
        glob("torch", "float32"),
        pickle.NEWTRUE,
        call(ORDERED_DICT),
    ),
    "a tensor whose storage is a string": call(
        glob("torch._utils", "_rebuild_tensor_v2"),
        text("0"),
        integer(0),
        tup(integer(1)),
        tup(integer(1)),
        pickle.NEWFALSE,
        call(ORDERED_DICT),
    ),
}


@pytest.mark.parametrize("case", list(HOSTILE_ARGUMENTS))
def test_allowed_callables_check_their_arguments(tmp_path, case):
    path = write(tmp_path / "args.pt", program(HOSTILE_ARGUMENTS[case]))
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed. ") as info:
        dyngrad.load(path)
    assert "args.pt" in str(info.value)
    assert_nothing_poisoned(tmp_path)


MALFORMED = {
    "stack underflow": (pickle.REDUCE, "IndexError"),
    "memo read before written": (pickle.BINGET + b"\x07", "memo entry 7 is read before"),
    "MARK never closed": (pickle.MARK + integer(1), "a MARK is never closed"),
    "TUPLE without MARK": (pickle.TUPLE, "needs a MARK that is not there"),
    "SETITEMS without a value": (
        pickle.EMPTY_DICT + pickle.MARK + text("k") + pickle.SETITEMS,
        "SETITEMS has a key without a value",
    ),
    "string longer than the file": (
        pickle.BINUNICODE8 + (2**60).to_bytes(8, "little"),
        "truncated",
    ),
    "FRAME longer than the file": (pickle.FRAME + (2**40).to_bytes(8, "little"), "truncated"),
    "unhashable dict key": (
        pickle.EMPTY_DICT + pickle.EMPTY_LIST + integer(1) + pickle.SETITEM,
        "unhashable type: 'list'",
    ),
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_malformed_pickles_give_one_clear_error(tmp_path, case):
    pickled, message = MALFORMED[case]
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed. ") as info:
        dyngrad.load(write(tmp_path / "bad.pt", program(pickled)))
    assert "bad.pt is corrupt" in str(info.value) and message in str(info.value)


def test_truncated_pickle(tmp_path):
    path = write(tmp_path / "cut.pt", program(text("abc"))[:-3])
    with pytest.raises(pickle.UnpicklingError, match="cut.pt is corrupt: the pickle is truncated"):
        dyngrad.load(path)


def test_deeply_nested_tuples_are_refused_not_a_crash(tmp_path):
    # CPython hashes nested tuples by unchecked C recursion: this file, loaded by
    # pickle.Unpickler, kills the process with a segfault. Run it in a child to be safe.
    nested = pickle.EMPTY_TUPLE + pickle.TUPLE1 * 200_000
    path = write(
        tmp_path / "deep.pt", program(pickle.EMPTY_DICT + nested + integer(1) + pickle.SETITEM)
    )
    script = (
        "import pickle, sys, dyngrad\n"
        "try:\n    dyngrad.load(sys.argv[1])\n"
        "except pickle.UnpicklingError as e:\n    print(e)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(path)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "deep.pt is corrupt: tuples nested more than 200 deep" in done.stdout


def test_deeply_nested_lists_load_without_recursion(tmp_path):
    nested = (
        pickle.EMPTY_LIST * 50_000 + pickle.APPEND * 49_999
    )  # each list appended to the one below
    back = dyngrad.load(write(tmp_path / "lists.pt", program(nested)))
    depth = 0
    while back:
        back, depth = back[0], depth + 1
    assert depth == 49_999


def test_numpy_scalars_take_their_byte_order_without_touching_numpy(tmp_path):
    be_dtype = call(glob("numpy", "dtype"), text("f8"), pickle.NEWFALSE, pickle.NEWTRUE)
    state = tup(
        integer(3),
        text(">"),
        pickle.NONE,
        pickle.NONE,
        pickle.NONE,
        integer(-1),
        integer(-1),
        integer(0),
    )
    raw = np.array([2.5], ">f8").tobytes().decode("latin1")
    value = call(
        glob("numpy._core.multiarray", "scalar"),
        be_dtype + state + pickle.BUILD,
        call(glob("_codecs", "encode"), text(raw), text("latin1")),
    )
    back = dyngrad.load(write(tmp_path / "np.pt", program(value)))
    assert back == 2.5 and isinstance(back, np.float64)
    assert_nothing_poisoned(tmp_path)


def test_state_dict_metadata_is_restored(tmp_path):
    # the OrderedDict of a state_dict, as torch.save writes it: items, then BUILD of _metadata
    metadata = mapping((text(""), mapping((text("version"), integer(1)))))
    state_dict = (
        call(ORDERED_DICT) + pickle.MARK + text("w") + tensor("0", 3, (3,), (1,)) + pickle.SETITEMS
    )
    built = state_dict + mapping((text("_metadata"), metadata)) + pickle.BUILD
    back = dyngrad.load(write(tmp_path / "sd.pt", program(built), {"0": bytes(12)}))
    assert type(back) is collections.OrderedDict and list(back) == ["w"]
    assert back._metadata == {"": {"version": 1}}


def test_protocol_4_and_5_opcodes_load(tmp_path):
    obj = {"a": [1, 2.5, "s", b"b", None, True], "t": (1, (2,)), "s": {1}, "f": frozenset({2})}
    for protocol in (4, 5):
        path = write(tmp_path / "p.pt", pickle.dumps(obj, protocol=protocol))
        assert dyngrad.load(path) == obj
    raw = pickle.dumps(bytearray(b"xy"), protocol=5)
    assert dyngrad.load(write(tmp_path / "ba.pt", raw)) == bytearray(b"xy")


def test_a_refused_load_runs_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for pickled in (
        call(glob("os", "system"), text("touch pwned")),
        call(glob("builtins", "eval"), text("__import__('os').system('touch pwned')")),
    ):
        with pytest.raises(pickle.UnpicklingError):
            dyngrad.load(write(tmp_path / "evil.pt", program(pickled)))
    assert not os.path.exists("pwned")


def test_torch_reader_fuzz_raises_only_its_two_errors(tmp_path):
    path = write_clean(tmp_path / "clean.pt")
    with zipfile.ZipFile(path) as archive:
        files = {n: archive.read(n) for n in archive.namelist()}
    pickled = files["archive/data.pkl"]
    rng = np.random.default_rng(0)
    for at in range(len(pickled)):
        for value in {0, 0xFF, int(rng.integers(256)), pickled[at] ^ 1}:
            mutated = pickled[:at] + bytes([value]) + pickled[at + 1 :]
            write(tmp_path / "fuzz.pt", mutated, {"0": files["archive/data/0"]})
            try:
                dyngrad.load(tmp_path / "fuzz.pt")
            except (pickle.UnpicklingError, RuntimeError) as exc:
                assert "fuzz.pt" in str(exc), exc
    assert_nothing_poisoned(tmp_path)
