"""Tensor.untyped_storage() and Tensor.storage() against PyTorch (Note [Storage objects])."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

import dyngrad


@pytest.fixture(autouse=True)
def _quiet_typed_storage_warning():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "TypedStorage is deprecated")
        yield


def test_untyped_storage_is_the_bases_bytes(lib):
    a = lib.tensor([1.0, 2.0])
    s = a.untyped_storage()
    assert isinstance(s, lib.UntypedStorage) and lib.is_storage(s)
    assert (s.nbytes(), s.size(), len(s), s.element_size()) == (8, 8, 8, 1)
    assert s.tolist() == [0, 0, 128, 63, 0, 0, 0, 64] and list(s) == s.tolist()
    assert (s[2], s[-1]) == (128, 64)
    assert s.data_ptr() == a.data_ptr() and str(s.device) == "cpu"
    assert s.type() == "torch.storage.UntypedStorage" and not s.is_shared()
    assert s.cpu() is s and not s.is_cuda and not s.is_sparse
    b = lib.arange(6.0)
    view = b[2:]
    assert view.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
    assert view.untyped_storage().nbytes() == 24 and view.storage_offset() == 2
    assert b.reshape(2, 3).t().untyped_storage().nbytes() == 24


def test_untyped_storage_slices_share_memory(lib):
    a = lib.tensor([1.0, 2.0])
    s = a.untyped_storage()
    part = s[1:3]
    assert isinstance(part, lib.UntypedStorage) and part.tolist() == [0, 128]
    part[0] = 1
    assert s[1] == 1


def test_untyped_storage_writes_show_in_the_tensor(lib):
    a = lib.zeros(2)
    s = a.untyped_storage()
    s[3] = 63
    s[2] = 128
    assert a.tolist() == [1.0, 0.0]
    s[0] = 300  # bytes wrap as PyTorch's
    s[1] = -1
    assert s[0:2].tolist() == [44, 255]
    s.fill_(0)
    assert a.tolist() == [0.0, 0.0]
    s.copy_(lib.tensor([3.0, 4.0]).untyped_storage())
    assert a.tolist() == [3.0, 4.0]
    c = s.clone()
    assert isinstance(c, lib.UntypedStorage) and c.data_ptr() != s.data_ptr()
    c.fill_(0)
    assert a.tolist() == [3.0, 4.0]
    assert copy.deepcopy(s).tolist() == s.tolist()


def test_untyped_storage_repr(lib):
    s = lib.tensor([1.0, 2.0]).untyped_storage()
    expected = (
        " 0\n 0\n 128\n 63\n 0\n 0\n 0\n 64\n[torch.storage.UntypedStorage(device=cpu) of size 8]"
    )
    assert repr(s) == str(s) == expected
    empty = "[torch.storage.UntypedStorage(device=cpu) of size 0]"
    assert repr(lib.tensor([], dtype=lib.float64).untyped_storage()) == " \n" + empty


def test_untyped_storage_constructor(lib):
    assert len(lib.UntypedStorage(3)) == 3  # (uninitialised in PyTorch, zeros here)
    assert lib.UntypedStorage([1, 300]).tolist() == [1, 44]
    s = lib.UntypedStorage(2)
    s.resize_(4)
    assert s.size() == 4


@pytest.mark.parametrize(
    "call, kind, message",
    [
        (lambda s: s[8], IndexError, "index 8 out of range for storage of size 8"),
        (lambda s: s[-9], IndexError, "out of range for storage of size 8"),
        (lambda s: s["a"], TypeError, "can't index a torch.UntypedStorage with str"),
        (
            lambda s: s.copy_(type(s)(4)),
            RuntimeError,
            "size does not match, self was 8 bytes but src was 4 bytes",
        ),
        (
            lambda s: type(s)("a"),
            RuntimeError,
            "torch.UntypedStorage(): tried to construct a storage from a sequence (str), but one "
            "of the items was of type str instead of int",
        ),
    ],
)
def test_untyped_storage_errors(lib, call, kind, message):
    s = lib.tensor([1.0, 2.0]).untyped_storage()
    with pytest.raises(kind) as info:
        call(s)
    assert message in str(info.value)


def test_a_tensors_storage_is_not_resizable(lib):
    s = lib.from_numpy(np.zeros(2)).untyped_storage()
    with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
        s.resize_(100)


def test_typed_storage(lib):
    a = lib.tensor([1.0, 2.0])
    ts = a.storage()
    assert isinstance(ts, lib.TypedStorage) and isinstance(ts, lib.FloatStorage)
    assert not isinstance(ts, lib.DoubleStorage) and lib.is_storage(ts)
    assert ts.dtype == lib.float32 and str(ts.device) == "cpu"
    assert (ts.size(), len(ts), ts.element_size(), ts.nbytes()) == (2, 2, 4, 8)
    assert (ts[0], ts[-1], ts.tolist(), list(ts)) == (1.0, 2.0, [1.0, 2.0], [1.0, 2.0])
    assert ts.data_ptr() == a.data_ptr() and not ts.is_shared()
    assert ts.type() == "torch.FloatStorage" and ts.pickle_storage_type() == "FloatStorage"
    assert isinstance(ts._untyped_storage, lib.UntypedStorage)
    assert ts.untyped().data_ptr() == a.untyped_storage().data_ptr()
    ts[1] = 7
    assert a.tolist() == [1.0, 7.0]
    ts[0:2] = 3.0
    assert a.tolist() == [3.0, 3.0]
    ts.fill_(5)
    assert a.tolist() == [5.0, 5.0]
    ts.copy_(lib.tensor([4.0, 6.0]).storage())
    assert a.tolist() == [4.0, 6.0]
    c = ts.clone()
    c[0] = 0
    assert type(c) is lib.TypedStorage and a.tolist() == [4.0, 6.0]
    b = lib.arange(6)
    assert b[2:].storage().data_ptr() == b.data_ptr() and len(b[2:].storage()) == 6
    assert lib.tensor([1.0, 2.0], dtype=lib.bfloat16).storage()[0] == 1.0
    assert lib.tensor([1 + 2j]).storage()[0] == 1 + 2j


@pytest.mark.parametrize(
    "make, expected",
    [
        (
            lambda t: t.tensor([1.0, 2.0]),
            " 1.0\n 2.0\n[torch.storage.TypedStorage(dtype=torch.float32, device=cpu) of size 2]",
        ),
        (
            lambda t: t.arange(3),
            " 0\n 1\n 2\n[torch.storage.TypedStorage(dtype=torch.int64, device=cpu) of size 3]",
        ),
        (
            lambda t: t.tensor([True, False]),
            " True\n False\n[torch.storage.TypedStorage(dtype=torch.bool, device=cpu) of size 2]",
        ),
        (
            lambda t: t.tensor([], dtype=t.float64),
            " \n[torch.storage.TypedStorage(dtype=torch.float64, device=cpu) of size 0]",
        ),
        (
            lambda t: t.tensor([1.5, 1e10]),
            " 1.5\n 10000000000.0\n"
            "[torch.storage.TypedStorage(dtype=torch.float32, device=cpu) of size 2]",
        ),
        (
            lambda t: t.tensor([1 + 2j]),
            " (1+2j)\n[torch.storage.TypedStorage(dtype=torch.complex64, device=cpu) of size 1]",
        ),
    ],
)
def test_typed_storage_repr(lib, make, expected):
    ts = make(lib).storage()
    assert repr(ts) == str(ts) == expected


@pytest.mark.parametrize(
    "call, kind, message",
    [
        (lambda s: s[2], IndexError, "index 2 out of range for storage of size 2"),
        (lambda s: s[-3], IndexError, "index -3 out of range for storage of size 2"),
        (lambda s: s[0:1], RuntimeError, "slices are only supported in UntypedStorage.__getitem__"),
        (lambda s: s.__setitem__(0, "x"), TypeError, "can't assign a str to a torch.FloatTensor"),
    ],
)
def test_typed_storage_errors(lib, call, kind, message):
    ts = lib.tensor([1.0, 2.0]).storage()
    with pytest.raises(kind) as info:
        call(ts)
    assert message in str(info.value)


def test_typed_storage_constructors(lib):
    assert lib.TypedStorage(2).size() == 2  # (uninitialised in PyTorch, zeros here)
    assert lib.TypedStorage([1.0, 2.0]).dtype == lib.float32
    ts = lib.TypedStorage([1, 2], dtype=lib.int32)
    assert (ts.dtype, ts.tolist()) == (lib.int32, [1, 2])
    assert lib.TypedStorage(2, dtype=lib.float64).nbytes() == 16
    legacy = lib.FloatStorage([1, 2])
    assert isinstance(legacy, lib.TypedStorage) and legacy.tolist() == [1.0, 2.0]
    assert lib.Storage is lib.FloatStorage
    wrapped = lib.TypedStorage(wrap_storage=lib.UntypedStorage(8), dtype=lib.int16)
    assert len(wrapped) == 4


def test_typed_storage_casts(lib):
    ts = lib.tensor([1.5, -2.0]).storage()
    long = ts.long()
    assert type(long) is lib.TypedStorage and long.dtype == lib.int64
    assert long.tolist() == [1, -2] and long.data_ptr() != ts.data_ptr()
    assert ts.byte().tolist() == [1, 254] and ts.char().tolist() == [1, -2]
    assert ts.bool().tolist() == [True, True] and ts.double().tolist() == [1.5, -2.0]
    kinds = [ts.half(), ts.bfloat16(), ts.short(), ts.int(), ts.float()]
    kinds += [ts.complex_float(), ts.complex_double()]
    expected = [lib.float16, lib.bfloat16, lib.int16, lib.int32, lib.float32]
    assert [k.dtype for k in kinds] == expected + [lib.complex64, lib.complex128]
    # torch warns once per process (TORCH_WARN_ONCE): an earlier test may have had it
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert lib.tensor([1 + 2j]).storage().float().tolist() == [1.0]
    casts = [w for w in caught if "Casting complex values to real" in str(w.message)]
    assert all(issubclass(w.category, UserWarning) for w in casts)
    if lib.__name__ == "dyngrad":
        assert casts
    assert lib.tensor(ts).tolist() == [1.5, -2.0]


def test_storage_warns_that_typed_storage_is_deprecated(lib):
    always = lib.storage._get_always_warn_typed_storage_removal()
    lib.storage._set_always_warn_typed_storage_removal(True)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.ones(2).storage()
    finally:
        lib.storage._set_always_warn_typed_storage_removal(always)
    (w,) = caught
    assert w.category is UserWarning and w.filename == __file__
    assert str(w.message).startswith("TypedStorage is deprecated. It will be removed in the future")


def test_set_onto_a_storage(lib):
    b = lib.arange(6.0)
    y = lib.zeros(1)
    y.set_(b.storage(), 2, (2, 2), (2, 1))
    assert y.tolist() == [[2.0, 3.0], [4.0, 5.0]]
    z = lib.zeros(1).set_(b.untyped_storage())
    assert z.shape == (6,) and z.data_ptr() == b.data_ptr()
    y[0, 0] = 9.0
    assert b[2].item() == 9.0


def test_sparse_tensors_have_no_storage(lib):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sp = lib.sparse_coo_tensor([[0]], [1.0], (2,))
    for call in (sp.storage, sp.untyped_storage):
        with pytest.raises(NotImplementedError, match="Cannot access storage of SparseTensorImpl"):
            call()


def test_top_level_storage_names_match_torch(torch):
    names = {n for n in torch.__all__ if n.endswith("Storage") and "Context" not in n}
    assert names <= set(dyngrad.__all__)
    assert all(isinstance(getattr(dyngrad, n), type) for n in names)
    assert dyngrad.storage.TypedStorage is dyngrad.TypedStorage
