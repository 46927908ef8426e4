"""The fast kernels of the hot ops give what the general paths and PyTorch give.

Each fast path (the classification nll, GEMV sums, row-wise index backward, the slice-based
split, PyTorch's own sigmoid) has a general path or a reference beside it; these tests pin
the two together, including the cases that leave the fast path.
"""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad
from dyngrad.ops.arrays import axis_sums, gemm
from dyngrad.ops.nn import loss as nn_loss
from dyngrad.ops.shape import indexing

from .oracle import same, same_grads

F = dyngrad.nn.functional


# ---- sigmoid: PyTorch's formula ---------------------------------------------------------------
def test_sigmoid_underflows_to_zero_as_torch():
    # 1 / (1 + e^-x): e^100 overflows float32, so torch gives exactly 0 (not a denormal)
    x = dyngrad.tensor([-100.0, -89.0, -88.0, 0.0, 88.0, 100.0])
    out = x.sigmoid().numpy()
    assert out[0] == 0.0 and out[1] == 0.0
    assert out[2] == np.float32(6.054601485195952e-39)
    assert out[3] == 0.5 and out[4] == 1.0 and out[5] == 1.0


def test_sigmoid_matches_torch_bitwise_on_a_dense_grid(torch):
    grid = np.random.default_rng(0).standard_normal(20000) * 12
    for dtype in (np.float32, np.float64, np.float16):
        a = grid.astype(dtype)
        ours = dyngrad.from_numpy(a).sigmoid().numpy()
        theirs = torch.from_numpy(a).sigmoid().numpy()
        # half precision computes in float32 and rounds once, as torch does: every value equal
        exact = np.mean(ours == theirs)
        assert exact >= (1.0 if dtype == np.float16 else 0.8), (dtype, exact)
        info = np.finfo(dtype)
        np.testing.assert_allclose(ours, theirs, rtol=4 * info.eps, atol=info.tiny)


def test_sigmoid_of_0d_and_nan():
    assert dyngrad.tensor(0.0).sigmoid().item() == 0.5
    assert np.isnan(dyngrad.tensor(float("nan")).sigmoid().item())


# ---- cross entropy / nll: the classification fast path -----------------------------------------
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_rows_agrees_with_general_path(reduction):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((7, 5)).astype(np.float32)
    t = rng.integers(0, 5, 7)
    assert nn_loss._plain_rows(x.shape, t, None, -100)
    fast = nn_loss._nll_rows(np, x, t, reduction)
    # the general path: forced by a weight of ones (same values, no fast path)
    general = nn_loss._nll_fwd(
        np, x, t, np.ones(5, np.float32), reduction=reduction, ignore_index=-100
    )
    np.testing.assert_allclose(fast, general, rtol=1e-6)
    assert fast.dtype == np.float32


def test_nll_rows_hands_ignored_and_multi_dim_targets_to_the_general_path():
    x = np.zeros((3, 4), np.float32)
    assert not nn_loss._plain_rows(x.shape, np.array([0, -100, 1]), None, -100)
    assert not nn_loss._plain_rows(x.shape, np.zeros((3, 1), np.int64), None, -100)


@pytest.mark.parametrize(
    "expr",
    [
        "F.cross_entropy(x, tg)",
        "F.cross_entropy(x, tg, reduction='sum')",
        "F.cross_entropy(x, tg, reduction='none')",
        "F.cross_entropy(x, tg, ignore_index=2)",
        "F.cross_entropy(x, tg[::1], label_smoothing=0.1)",
    ],
)
def test_cross_entropy_values_grads_and_names_match_torch(torch, expr):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((6, 5)).astype(np.float32)
    tg = rng.integers(0, 5, 6)
    same_grads(torch, expr.replace("F.", "t.nn.functional."), x=x, tg=tg)


def test_cross_entropy_on_a_strided_target_column_matches_torch(torch):
    # the char-LSTM pattern: targets are a column of a (batch, seq) token table
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 9)).astype(np.float32)
    tokens = rng.integers(0, 9, (4, 6))
    same_grads(torch, "t.nn.functional.cross_entropy(x, tokens[:, 3])", x=x, tokens=tokens)


@pytest.mark.parametrize("bad", [5, -1])
def test_cross_entropy_target_out_of_bounds_raises_as_torch(torch, bad):
    x = np.zeros((3, 5), np.float32)
    same(torch, "t.nn.functional.cross_entropy(x, tt)", x=x, tt=np.array([0, bad, 1]))


def test_cross_entropy_of_an_empty_batch_is_nan():
    loss = F.cross_entropy(dyngrad.zeros(0, 4), dyngrad.zeros(0, dtype=dyngrad.long))
    assert np.isnan(loss.item())


# ---- sums by GEMV -------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gemv_sums_agree_with_numpy(dtype):
    a = np.random.default_rng(4).standard_normal((8, 64, 96)).astype(dtype)
    exact = a.astype(np.float64)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(
        axis_sums.last_sum(np, a), exact.sum(-1, keepdims=True), rtol=tol, atol=tol * 100
    )
    np.testing.assert_allclose(
        axis_sums.lead_sum(np, a, 2), exact.sum((0, 1)), rtol=tol, atol=tol * 100
    )
    assert axis_sums.lead_sum(np, a, 0).shape == a.shape


def test_gemv_sums_leave_small_half_and_strided_arrays_to_numpy():
    for a in (
        np.ones((4, 4), np.float32),
        np.ones((64, 128), np.float16),
        np.ones((128, 128), np.float32)[:, ::2],
    ):
        assert not axis_sums.by_blas(a)
        np.testing.assert_array_equal(axis_sums.last_sum(np, a), a.sum(-1, keepdims=True))


def test_layer_norm_and_bias_gradients_match_torch_at_gemv_sizes(torch):
    # float64, so the oracle's tight tolerance holds (float32 normalizing loses digits to
    # cancellation in any summation order)
    rng = np.random.default_rng(5)
    x = rng.standard_normal((4, 32, 64))
    w = rng.standard_normal(64)
    b = rng.standard_normal(64)
    same_grads(torch, "t.nn.functional.layer_norm(x, (64,), w, b)", x=x, w=w, b=b)
    same_grads(torch, "t.softmax(x, -1)", x=x)
    same_grads(torch, "t.log_softmax(x, -1)", x=x)
    same_grads(torch, "x + b", x=x, b=b)


# ---- rows of a table by index: backward by rounds -------------------------------------------
def test_index_backward_adds_repeated_and_negative_rows_in_order():
    rng = np.random.default_rng(6)
    g = rng.standard_normal((9, 3)).astype(np.float32)
    rows = np.array([2, 0, 2, -1, 4, 2, 4, 0, -5])
    got = indexing._scatter_add_fwd(np, g, shape=(5, 3), key=(rows,))
    want = np.zeros((5, 3), np.float32)
    np.add.at(want, rows, g)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("vocab", [1, 3, 40])
def test_add_rows_sums_each_row_in_order_bitwise(vocab):
    # rounds of distinct rows, and add.at once few rows repeat many times: both must add in
    # the order of the indices, as a sequential loop does
    rng = np.random.default_rng(vocab)
    for n, width in [(2, 1), (16, 64), (300, 5), (64, 3)]:
        rows = rng.integers(0, vocab, n)
        g = rng.standard_normal((n, width)).astype(np.float32)
        got = np.zeros((vocab, width), np.float32)
        indexing.add_rows(np, got, rows, g)
        want = np.zeros((vocab, width), np.float32)
        for i in range(n):
            want[rows[i]] += g[i]
        np.testing.assert_array_equal(got, want)


def test_index_backward_matches_torch(torch):
    rng = np.random.default_rng(7)
    w = rng.standard_normal((6, 4)).astype(np.float32)
    idx = np.array([[1, 5, 1], [0, -1, 5]])
    same_grads(torch, "w[i]", w=w, i=idx)
    same_grads(torch, "w[:, i[0]]", w=w, i=np.array([[0, 3, 0]]))


# ---- split by slices, cat's shape check -------------------------------------------------------
def test_chunk_pieces_are_views_with_torch_grads(torch):
    x = np.arange(24, dtype=np.float32).reshape(2, 12)
    same_grads(torch, "x.chunk(4, 1)", x=x)
    same_grads(torch, "x.split([5, 0, 7], 1)", x=x)
    pieces = dyngrad.from_numpy(x).chunk(3, 1)
    assert all(p._base is not None for p in pieces)


def test_cat_mismatch_errors_match_torch(torch):
    a = np.zeros((2, 3), np.float32)
    same(torch, "t.cat([a, b], 1)", a=a, b=np.zeros((3, 3), np.float32))
    same(torch, "t.cat([a, b], 0)", a=a, b=np.zeros((2, 3, 1), np.float32))
    same(torch, "t.cat([a, b], 0)", a=a, b=np.zeros((0,), np.float32))


# ---- array kernels: the same gradients as the formulas ------------------------------------------
KERNEL_EXPRS = [
    ("a + b", {}),
    ("a - b", {}),
    ("a * b", {}),
    ("a / (b.abs() + 1)", {}),
    ("-a", {}),
    ("a.exp()", {}),
    ("(a.abs() + 1).log()", {}),
    ("(a.abs() + 1).sqrt()", {}),
    ("a.tanh()", {}),
    ("a.sigmoid()", {}),
    ("a.relu()", {}),
    ("1 - a", {}),
    ("torch.add(a, b, alpha=2)", {}),
    ("torch.sub(a, b, alpha=3)", {}),
    ("a @ b.t()", {}),
    ("F.linear(a, b, b[:, 0])", {}),
    ("F.mse_loss(a, b)", {}),
    ("F.mse_loss(a, b, reduction='none')", {}),
    ("a.softmax(-1)", {}),
    ("a.log_softmax(0)", {}),
    ("F.gelu(a)", {}),
    ("F.gelu(a, approximate='tanh')", {}),
    ("F.layer_norm(a, (4,), b[0], b[1])", {}),
    ("F.layer_norm(a, (3, 4))", {}),
    ("F.cross_entropy(a, torch.tensor([0, 3, 1]))", {}),
    ("F.nll_loss(a, torch.tensor([0, 3, 1]), reduction='none')", {}),
    ("a.view(4, 3)", {}),
    ("a.reshape(2, 6)", {}),
    ("a.t()", {}),
    ("a.transpose(0, 1)", {}),
    ("a.unsqueeze(1).permute(2, 0, 1)", {}),
    ("a[:1].squeeze(0)", {}),
    ("a[None].expand(2, 3, 4)", {}),
    ("a.sum()", {}),
    ("a.mean()", {}),
    ("a.sum(1)", {}),
    ("a.mean(0, keepdim=True)", {}),
    ("a.sum((0, 1))", {}),
    ("a.sum_to_size(1, 4)", {}),
    ("a.clone()", {}),
    ("a.reshape(3, 2, 2) @ b.reshape(3, 2, 2)", {}),
    ("a @ b.t() @ a", {}),
    ("a.reshape(3, 2, 2) @ b[0].reshape(2, 2)", {}),
    ("a @ b[0]", {}),
    ("a.masked_fill(b > 0, 0.5)", {}),
    ("a[1]", {}),
    ("a[:, 1:3]", {}),
    ("a[torch.tensor([2, 0, 2])]", {}),
    ("F.embedding(torch.tensor([[1, 2], [2, 0]]), a)", {}),
    # multi-output and variadic rows: pieces without a gradient count as zeros
    ("torch.cat(a.chunk(2, 1), 0)", {}),
    ("a.chunk(4, 1)[1] * 2 + a.chunk(4, 1)[3]", {}),
    ("a.split([1, 3], 1)[1]", {}),
    ("torch.stack(a.unbind(0)[::2])", {}),
    ("torch.stack([a, b], 1)", {}),
    ("torch.cat([a, b[:, :2]], 1)", {}),
]


@pytest.mark.parametrize("expr", [e for e, _ in KERNEL_EXPRS])
def test_array_kernels_give_the_formulas_gradients(expr):
    rng = np.random.default_rng(8)
    a0, b0 = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    w0 = None
    grads = []
    for create_graph in (False, True):  # kernels without a graph, formulas with one
        a = dyngrad.tensor(a0, requires_grad=True)
        b = dyngrad.tensor(b0, requires_grad=True)
        out = eval(expr, {"torch": dyngrad, "F": F, "a": a, "b": b})
        w0 = rng.standard_normal(tuple(out.shape)) if w0 is None else w0
        w = dyngrad.tensor(w0)
        grads.append(
            dyngrad.autograd.grad(
                (out * w).sum(), (a, b), create_graph=create_graph, allow_unused=True
            )
        )
    for fast, formula in zip(*grads):
        if formula is None:
            assert fast is None
            continue
        np.testing.assert_allclose(
            fast.detach().numpy(), formula.detach().numpy(), rtol=1e-12, atol=1e-14, err_msg=expr
        )


@pytest.mark.parametrize("expr", ["a + b", "(a - 0.0) + (b - 0.0)", "(a + 0.0) + b"])
def test_a_gradient_handed_to_two_leaves_is_not_shared(expr):
    # add's and sub's kernels hand the incoming gradient on as is, through more than one node:
    # each leaf must still get its own buffer
    a = dyngrad.ones(3, requires_grad=True)
    b = dyngrad.ones(3, requires_grad=True)
    # (* 2: the gradient arriving is a fresh array, not sum's broadcast view)
    (eval(expr, {"a": a, "b": b}) * 2).sum().backward()
    a.grad.add_(1)
    assert b.grad.tolist() == [2.0, 2.0, 2.0]
    assert not np.shares_memory(a.grad.numpy(), b.grad.numpy())


def test_kernels_leave_mixed_dtypes_to_the_formulas(torch):
    # float32 times a 0-d float64 tensor: PyTorch keeps float32; the gradients promote as torch
    x = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    same_grads(torch, "x * s", x=x, s=np.array(3.0))
    same_grads(torch, "x * n", x=x, n=np.array([1, 2, 3]))


def test_kernel_path_still_reports_a_saved_tensor_modified_in_place():
    x = dyngrad.ones(3, requires_grad=True)
    y = x.sigmoid()
    y.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


# ---- one sample through linear, and mv: BLAS's matrix-vector product ---------------------------
def test_linear_of_one_row_and_mv_match_torch(torch):
    rng = np.random.default_rng(9)  # float64: a float32 dot product's rounding is not torch's
    x = rng.standard_normal((1, 7))
    w = rng.standard_normal((5, 7))
    b = rng.standard_normal(5)
    same_grads(torch, "t.nn.functional.linear(x, w, b)", x=x, w=w, b=b)
    out = F.linear(*(dyngrad.from_numpy(a) for a in (x, w, b)))
    assert out.is_contiguous() and tuple(out.shape) == (1, 5)
    same_grads(torch, "t.mv(w, x[0])", x=x, w=w)
    same_grads(torch, "t.nn.functional.linear(x3, w, b)", x3=x.reshape(1, 1, 7), w=w, b=b)


@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5, 5), (2, 3, 40, 40)])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_kernels_give_the_formulas_gradients(shape, training):
    # (2, 3, 40, 40) is large enough for the GEMV sums (Note [Sums by GEMV])
    rng = np.random.default_rng(10)
    x0, w0, b0 = rng.standard_normal(shape), rng.standard_normal(3), rng.standard_normal(3)
    rm, rv = rng.standard_normal(3), rng.uniform(0.5, 2, 3)
    g0 = rng.standard_normal(shape)
    grads = []
    for create_graph in (False, True):
        x, w, b = (dyngrad.tensor(a, requires_grad=True) for a in (x0, w0, b0))
        y = F.batch_norm(x, dyngrad.tensor(rm), dyngrad.tensor(rv), w, b, training=training)
        grads.append(
            dyngrad.autograd.grad(
                (y * dyngrad.tensor(g0)).sum(), (x, w, b), create_graph=create_graph
            )
        )
    for fast, formula in zip(*grads):
        np.testing.assert_allclose(
            fast.detach().numpy(), formula.detach().numpy(), rtol=1e-10, atol=1e-12
        )


def test_batch_norm_matches_torch_at_gemv_sizes(torch):
    rng = np.random.default_rng(11)
    x = rng.standard_normal((4, 3, 40, 40))
    w, b = rng.standard_normal(3), rng.standard_normal(3)
    same_grads(
        torch, "t.nn.functional.batch_norm(x, None, None, w, b, training=True)", x=x, w=w, b=b
    )


@pytest.mark.parametrize("shape", [(8, 4, 64, 63), (1000, 3), (2048, 10), (64, 1000), (16, 4)])
def test_row_maxima_by_halving_are_numpys(shape):
    x = np.random.default_rng(12).standard_normal(shape).astype(np.float32)
    x[0, ..., -1] = np.nan
    x[-1, ..., 0] = np.inf
    np.testing.assert_array_equal(axis_sums.last_max(np, x), x.max(axis=-1, keepdims=True))


def test_a_kernel_may_read_only_what_the_formulas_read():
    from dyngrad.ops.table.array_backward import ArrayBackward
    from dyngrad.ops.table.registry import OPS, defop

    # `x` is never saved (no formula reads it), so a kernel reading it would get nothing
    with pytest.raises(TypeError, match=r"kernel reads names no formula reads \['x'\]"):
        defop(
            "kernel_reads_unsaved",
            lambda xp, x: x * 2,
            {"x": lambda g: g * 2},
            array_backward=ArrayBackward(lambda xp, needs, g, x: (g * x,)),
        )
    assert "kernel_reads_unsaved" not in OPS


# ---- GEMM orientation ---------------------------------------------------------------------
@pytest.mark.parametrize("m,k,n", [(16, 128, 512), (32, 512, 128), (8, 128, 512), (16, 64, 128)])
def test_gemm_by_a_transposed_matrix_is_the_product_in_c_order(m, k, n):
    rng = np.random.default_rng(m + k + n)
    a = rng.standard_normal((m, k)).astype(np.float32)
    w = rng.standard_normal((n, k)).astype(np.float32)
    out = gemm.mm(np, a, w.T)  # turned inside the window (16-32 rows, long sides), else direct
    assert out.flags.c_contiguous and out.shape == (m, n) and out.dtype == np.float32
    exact = a.astype(np.float64) @ w.T.astype(np.float64)
    np.testing.assert_allclose(out, exact, rtol=1e-4, atol=1e-4)


def test_rnn_step_gradients_through_turned_products_match_torch(torch):
    # h @ w and linear at batch 16: the backward's g @ w.T (and linear's x @ w.T) are turned;
    # two BLAS libraries sum 512 float32 terms in their own orders, hence the tolerance
    rng = np.random.default_rng(12)
    h0 = rng.standard_normal((16, 128)).astype(np.float32)
    w0 = (rng.standard_normal((128, 512)) * 0.1).astype(np.float32)
    g0 = rng.standard_normal((16, 512)).astype(np.float32)
    results = []
    for lib in (dyngrad, torch):
        h, w = (lib.tensor(a, requires_grad=True) for a in (h0, w0))
        out = (h @ w).tanh() + lib.nn.functional.linear(h, w.t(), w[0])
        (out * lib.tensor(g0)).sum().backward()
        results.append([t.detach().numpy() for t in (out, h.grad, w.grad)])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-4)


# ---- stashed intermediates: GELU's cdf ----------------------------------------------------------
def test_gelu_backward_from_the_stashed_cdf_is_the_recomputed_one_bitwise():
    from dyngrad.ops.elementwise import gelu

    rng = np.random.default_rng(13)
    x0 = (rng.standard_normal((300, 257)) * 3).astype(np.float32)  # large: split on threads
    g0 = rng.standard_normal(x0.shape).astype(np.float32)
    x = dyngrad.from_numpy(x0).requires_grad_(True)
    y = F.gelu(x)
    assert y.grad_fn._stash is not None
    y.backward(dyngrad.from_numpy(g0), retain_graph=True)
    recomputed = gelu._gelu_backward(np, g0, x0, approximate="none")  # no stash: erf again
    np.testing.assert_array_equal(x.grad.numpy(), recomputed)
    x.grad = None
    y.backward(dyngrad.from_numpy(g0))  # retained: the stash is still there
    np.testing.assert_array_equal(x.grad.numpy(), recomputed)
    assert y.grad_fn._stash is None  # released with the saved tensors


def test_gelu_stash_is_not_kept_without_a_graph_and_in_place_gelu_matches_torch(torch):
    with dyngrad.no_grad():
        assert F.gelu(dyngrad.ones(3, requires_grad=True)).grad_fn is None
    # (not far below -3: there 1 + erf cancels, and an ulp of erf is a large part of the
    # result in torch's float32 formula as in ours)
    x = np.linspace(-3, 3, 12, dtype=np.float32).reshape(3, 4)
    from dyngrad.ops.elementwise.gelu import gelu_

    ours = dyngrad.from_numpy(x).requires_grad_(True)
    theirs = torch.from_numpy(x).requires_grad_(True)
    names = []
    for in_place, leaf in ((gelu_, ours), (torch._C._nn.gelu_, theirs)):
        F_ = dyngrad.nn.functional if leaf is ours else torch.nn.functional
        F_.gelu(leaf * 1).sum().backward()  # out of place, then in place (the stash of the
        y = leaf * 1  # input before the write)
        in_place(y)
        names.append(type(y.grad_fn).__name__)
        (y * y).sum().backward()
    assert names[0] == names[1]
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-6, atol=1e-7)


def test_a_kernel_reads_stash_only_on_a_stash_row():
    from dyngrad.ops.table.array_backward import ArrayBackward
    from dyngrad.ops.table.registry import defop

    with pytest.raises(TypeError, match="reads names no formula reads"):
        defop(
            "bad_stash_probe",
            lambda xp, x: x,
            {"x": lambda g: g},
            array_backward=ArrayBackward(lambda xp, needs, g, stash: (g,)),
        )


# ---- pow with a number: its array kernel is its formula ----------------------------------------
@pytest.mark.parametrize("dtype", [dyngrad.float32, dyngrad.float64])
@pytest.mark.parametrize("exponent", [2, 3, 0, 1, 2.0, 0.5, -1.5])
def test_pow_kernel_equals_its_formula_bitwise(dtype, exponent):
    base = [0.0, 1.5, -2.0, 3.25] if exponent not in (0.5, -1.5) else [0.25, 1.5, 2.0, 3.25]
    x = dyngrad.tensor(base, dtype=dtype, requires_grad=True)
    g = dyngrad.tensor([1.0, -2.0, 0.5, 3.0], dtype=dtype)
    (kernel,) = dyngrad.autograd.grad(x**exponent, x, g)  # no graph: the array kernel
    (formula,) = dyngrad.autograd.grad(x**exponent, x, g, create_graph=True)
    np.testing.assert_array_equal(kernel.numpy(), formula.detach().numpy())


def test_pow_kernel_matches_torch(torch):
    for exponent in (2, 0, 0.5):
        x = np.array([0.25, 1.5, 2.0], dtype=np.float32)
        ours = dyngrad.tensor(x, requires_grad=True)
        theirs = torch.tensor(x, requires_grad=True)
        (ours**exponent).sum().backward()
        (theirs**exponent).sum().backward()
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-6)
