"""Sparse COO tensors as graph networks use them, run under dyngrad and torch alike: their
construction and parts, printing, sparse @ dense products with gradients to the dense side
and to the values, torch.sparse.sum, and PyTorch's errors for what has no sparse kernel."""

from __future__ import annotations

import numpy as np
import pytest

# a 2x3 pattern with a repeated entry (0, 2): nothing may assume coalesced input
INDICES = [[0, 1, 1, 0], [2, 0, 2, 2]]
VALUES = [3.0, 4.0, 5.0, 1.0]


def _coo(lib, requires_grad=True):
    values = lib.tensor(VALUES, requires_grad=requires_grad)
    return lib.sparse_coo_tensor(lib.tensor(INDICES), values, (2, 3)), values


def _dense(lib):
    return lib.arange(6.0).reshape(3, 2).requires_grad_()


def test_parts_and_layout(lib):
    s, _ = _coo(lib)
    assert s.is_sparse and s.layout is lib.sparse_coo and str(s.layout) == "torch.sparse_coo"
    assert not lib.ones(2).is_sparse and lib.ones(2).layout is lib.strided
    assert s._nnz() == 4 and not s.is_coalesced()
    assert (s.sparse_dim(), s.dense_dim()) == (2, 0)
    assert s.shape == (2, 3) and s.type() == "torch.sparse.FloatTensor"
    c = s.coalesce()
    assert c.is_coalesced() and c.grad_fn.name() == "CoalesceBackward0"
    assert c.indices().tolist() == [[0, 1, 1], [2, 0, 2]]
    assert c.values().tolist() == [4.0, 4.0, 5.0]
    assert c.values().grad_fn.name() == "ValuesBackward0"
    assert s.to_dense().tolist() == [[0.0, 0.0, 4.0], [4.0, 0.0, 5.0]]
    assert s.grad_fn.name() == "SparseCooTensorWithDimsAndTensorsBackward0"


def test_uncoalesced_indices_refused(lib):
    s, _ = _coo(lib)
    with pytest.raises(RuntimeError, match="Cannot get indices on an uncoalesced tensor"):
        s.indices()


def test_printing_matches_torch(torch):
    import dyngrad

    texts = []
    for lib in (dyngrad, torch):
        s, _ = _coo(lib)
        x = lib.tensor([[0.0, 2.0], [3.0, 0.0]], dtype=lib.float64)
        texts.append((repr(s), repr(s.coalesce()), repr(x.to_sparse()), repr(s.detach())))
    assert texts[0] == texts[1]


@pytest.mark.parametrize("product", ["sparse.mm", "spmm", "mm", "matmul", "@"])
def test_sparse_times_dense_gradients(torch, product):
    import dyngrad

    got = []
    for lib in (dyngrad, torch):
        s, values = _coo(lib)
        d = _dense(lib)
        fn = {
            "sparse.mm": lib.sparse.mm,
            "spmm": lib.spmm,
            "mm": lib.mm,
            "matmul": lib.matmul,
            "@": lambda a, b: a @ b,
        }[product]
        y = fn(s, d)
        grads = lib.autograd.grad(y.pow(2).sum(), (values, d))
        edges = [fn and fn.name() for fn, _ in y.grad_fn.next_functions]
        got.append((y.tolist(), y.grad_fn.name(), edges, [g.tolist() for g in grads]))
    assert got[0] == got[1]


def test_sparse_times_vector_is_mv(torch):
    import dyngrad

    got = []
    for lib in (dyngrad, torch):
        s, values = _coo(lib)
        v = lib.ones(3, requires_grad=True)
        y = s.matmul(v)
        grads = lib.autograd.grad(y.pow(2).sum(), (values, v))
        got.append((y.tolist(), y.grad_fn.name(), [g.tolist() for g in grads]))
    assert got[0] == got[1]


def test_to_sparse_round_trip_gradient(lib):
    x = lib.tensor([[0.0, 2.0], [3.0, 0.0]], requires_grad=True)
    sp = x.to_sparse()
    assert sp.grad_fn.name() == "ToSparseBackward1"
    dense = sp.to_dense()
    assert dense.grad_fn.name() == "ToDenseBackward0"
    (dense * lib.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    assert x.grad.tolist() == [[0.0, 2.0], [3.0, 0.0]]  # masked by the pattern, as torch's


def test_sparse_sum(torch):
    import dyngrad

    got = []
    for lib in (dyngrad, torch):
        s, values = _coo(lib)
        total = lib.sparse.sum(s)
        rows = lib.sparse.sum(s, dim=1)
        cols = lib.sparse.sum(s, dim=0)
        (g,) = lib.autograd.grad(total * 2 + rows.to_dense().pow(2).sum(), values)
        got.append(
            (
                total.item(),
                total.grad_fn.name(),
                rows.is_sparse,
                rows.to_dense().tolist(),
                rows.grad_fn.name(),
                cols.is_sparse,
                cols.to_dense().tolist(),
                g.tolist(),
            )
        )
    assert got[0] == got[1]


def test_scaled_and_summed_sparse_tensors(torch):
    import dyngrad

    got = []
    for lib in (dyngrad, torch):
        s, values = _coo(lib)
        t = (2 * s + s * 3 - s).t()
        (g,) = lib.autograd.grad(t.to_dense().pow(2).sum(), values)
        got.append((t.is_sparse, t.grad_fn.name(), t.to_dense().tolist(), g.tolist()))
    assert got[0] == got[1]


def test_gradcheck_through_sparse_products():
    import dyngrad

    indices = dyngrad.tensor(INDICES)
    values = dyngrad.tensor(VALUES, dtype=dyngrad.float64, requires_grad=True)
    d = dyngrad.randn(3, 2, dtype=dyngrad.float64, requires_grad=True)

    def fn(v, m):
        return dyngrad.sparse.mm(dyngrad.sparse_coo_tensor(indices, v, (2, 3)), m)

    assert dyngrad.autograd.gradcheck(fn, (values, d))
    assert dyngrad.autograd.gradgradcheck(fn, (values, d))


@pytest.mark.parametrize(
    "call,kind,message",
    [
        ("s.exp()", NotImplementedError, "Could not run 'aten::exp' with arguments from the "),
        ("s.view(6)", RuntimeError, None),
        ("s.numpy()", TypeError, "can't convert Sparse layout tensor to numpy"),
        ("s.tolist()", RuntimeError, "Cannot access data pointer of Tensor"),
        ("s.nbytes", RuntimeError, "nbytes is not defined for sparse tensors."),
        ("s.sum()", None, None),
        ("lib.sparse.mm(s, lib.ones(4, 2))", RuntimeError, "Expected dim 0 size 3, got 4"),
    ],
)
def test_errors_for_what_sparse_does_not_run(lib, call, kind, message):
    s, _ = _coo(lib)
    if kind is None:
        assert eval(call).item() == 13.0
        return
    with pytest.raises(kind) as info:
        eval(call)
    if message is not None:
        assert message in str(info.value)


def test_sparse_gradient_accumulates_into_dense_grad(torch):
    import dyngrad

    got = []
    for lib in (dyngrad, torch):
        d = _dense(lib)
        s, _ = _coo(lib, requires_grad=False)
        for _ in range(2):
            lib.sparse.mm(s, d).sum().backward()
        got.append(d.grad.tolist())
    np.testing.assert_allclose(got[0], got[1])
