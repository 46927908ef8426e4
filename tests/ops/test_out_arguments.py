"""`out=` on every public function PyTorch gives it: values written into `out`, the resize
warning, dtype and autograd refusals (Note [out= arguments])."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import dyngrad
from dyngrad.ops.table.out import OUT_FUNCTIONS

RESIZED = "An output with one or more elements was resized since it had shape"
NO_AUTOGRAD = "functions with out=... arguments don't support automatic differentiation"


def _patterns(lib):
    x = lib.rand(3, 3) + 0.5
    i = lib.tensor([0, 1])
    xi = lib.tensor([1, 2, 0])
    return [
        (x,), (x, 0), (x, x), (x, 1.0), (x, x, x), ((x, x),), (x, (0,)), (xi,), (x, i),
        (x, 0, i), (x, 0, i, x[:2]), (x, x > 1, x), (x, x > 1), (3,), ((2, 3),), (2, 3), (0, 5),
        (0.0, 1.0, 5), (x, x, 1), (x.sum(),), (x > 1, x, x), (x, 1, 0),
    ]  # fmt: skip


SPECIAL = {
    "normal": lambda lib: (lib.zeros(3), lib.ones(3)),
    "multinomial": lambda lib: (lib.ones(4), 2),
    "mvlgamma": lambda lib: (lib.full((3,), 2.0), 2),
    "polygamma": lambda lib: (1, lib.full((3,), 2.0)),
    "bmm": lambda lib: (lib.ones(2, 3, 4), lib.ones(2, 4, 5)),
    "baddbmm": lambda lib: (lib.ones(2, 3, 5), lib.ones(2, 3, 4), lib.ones(2, 4, 5)),
    "addbmm": lambda lib: (lib.ones(3, 5), lib.ones(2, 3, 4), lib.ones(2, 4, 5)),
    "addmv": lambda lib: (lib.ones(3), lib.ones(3, 4), lib.ones(4)),
    "addr": lambda lib: (lib.ones(3, 4), lib.ones(3), lib.ones(4)),
    "mv": lambda lib: (lib.ones(3, 4), lib.ones(4)),
    "dot": lambda lib: (lib.ones(3), lib.ones(3)),
    "outer": lambda lib: (lib.ones(3), lib.ones(4)),
    "ger": lambda lib: (lib.ones(3), lib.ones(4)),
    "gather": lambda lib: (lib.ones(3, 3), 1, lib.tensor([[0], [1], [2]])),
    "scatter": lambda lib: (lib.zeros(3, 3), 1, lib.tensor([[0], [1], [2]]), lib.ones(3, 1)),
    "full": lambda lib: ((2, 3), 1.5),
    "median": lambda lib: (lib.tensor([[3.0, 1.0, 2.0]]), 1),
    "nanmedian": lambda lib: (lib.tensor([[3.0, float("nan"), 2.0]]), 1),
    "scatter_reduce": lambda lib: (
        lib.zeros(3, 3),
        1,
        lib.tensor([[0], [1], [2]]),
        lib.ones(3, 1),
        "amax",
    ),
    "randint": lambda lib: (0, 5, (3,)),
    "cholesky": lambda lib: (lib.eye(3) * 2,),
    "inverse": lambda lib: (lib.eye(3) * 2,),
    "lu": lambda lib: (lib.eye(3) * 2,),
    "orgqr": lambda lib: (lib.eye(3), lib.ones(2)),
    "lu_unpack": lambda lib: (lib.eye(3) * 2, lib.tensor([1, 2, 3], dtype=lib.int32)),
    "lu_solve": lambda lib: (
        lib.ones(3, 1),
        lib.eye(3) * 2,
        lib.tensor([1, 2, 3], dtype=lib.int32),
    ),
    "bitwise_and": lambda lib: (lib.tensor([1, 2]), lib.tensor([3, 1])),
    "bitwise_or": lambda lib: (lib.tensor([1, 2]), lib.tensor([3, 1])),
    "bitwise_xor": lambda lib: (lib.tensor([1, 2]), lib.tensor([3, 1])),
    "bitwise_left_shift": lambda lib: (lib.tensor([1, 2]), lib.tensor([3, 1])),
    "bitwise_right_shift": lambda lib: (lib.tensor([8, 2]), lib.tensor([3, 1])),
    # the view copies (ops/shape/view_copies.py)
    "as_strided_copy": lambda lib: (lib.arange(9.0).reshape(3, 3), (2, 2), (1, 2)),
    "narrow_copy": lambda lib: (lib.arange(9.0).reshape(3, 3), 1, 1, 2),
    "split_with_sizes_copy": lambda lib: (lib.arange(9.0).reshape(3, 3), [1, 2]),
    "unfold_copy": lambda lib: (lib.arange(9.0).reshape(3, 3), 1, 2, 1),
    "view_as_complex_copy": lambda lib: (lib.arange(6.0).reshape(3, 2),),
    "view_as_real_copy": lambda lib: (lib.arange(3.0).to(lib.complex64),),
    "view_copy": lambda lib: (lib.arange(9.0).reshape(3, 3), (9,)),
}
RANDOM = {"rand", "randn", "randint", "randperm", "normal", "multinomial", "empty"}


def _call_args(name):
    fn = getattr(dyngrad, name)
    candidates = [SPECIAL[name](dyngrad)] if name in SPECIAL else _patterns(dyngrad)
    for args in candidates:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = fn(*args)
        except Exception:
            continue
        if isinstance(result, dyngrad.Tensor) or (
            isinstance(result, tuple) and all(isinstance(r, dyngrad.Tensor) for r in result)
        ):
            return args, result
    return None, None


NAMES = sorted(n for n in OUT_FUNCTIONS if hasattr(dyngrad, n))


def _empty_like(result):
    if isinstance(result, tuple):
        return tuple(dyngrad.empty(0, dtype=r.dtype) for r in result)
    return dyngrad.empty(0, dtype=result.dtype)


def _values(t):
    return [r.tolist() for r in t] if isinstance(t, tuple) else t.tolist()


@pytest.mark.parametrize("name", NAMES)
def test_out_receives_the_result(name):
    args, expected = _call_args(name)
    assert args is not None, f"no sample arguments for torch.{name}"
    out = _empty_like(expected)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=RESIZED)  # an empty out is resized silently
        returned = getattr(dyngrad, name)(*args, out=out)
    outs = out if isinstance(out, tuple) else (out,)
    got = returned if isinstance(returned, tuple) else (returned,)
    assert all(a is b for a, b in zip(got, outs))  # the very tensors passed in
    if name not in RANDOM:
        np.testing.assert_equal(_values(out), _values(expected))
    else:
        assert [o.shape for o in outs] == [
            e.shape for e in (expected if isinstance(expected, tuple) else (expected,))
        ]


def test_a_nonempty_out_of_another_shape_is_resized_with_pytorchs_warning(lib):
    a = lib.ones(3)
    out = lib.empty(2)
    with pytest.warns(UserWarning, match=RESIZED) as record:
        result = lib.add(a, a, out=out)
    assert result is out and out.tolist() == [2.0, 2.0, 2.0]
    assert str(record[0].message).startswith(
        "An output with one or more elements was resized since it had shape [2], which does "
        "not match the required output shape [3]."
    )


def test_out_of_the_same_shape_is_written_in_place_and_its_version_moves(lib):
    base = lib.zeros(2, 3)
    view = base[0]
    lib.add(lib.ones(3), lib.ones(3), out=view)
    assert base.tolist() == [[2.0, 2.0, 2.0], [0.0, 0.0, 0.0]]
    assert view._version == 1


def test_an_input_that_requires_grad_is_refused(lib):
    b = lib.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="^add\\(\\): " + NO_AUTOGRAD):
        lib.add(b, lib.ones(3), out=lib.empty(3))
    with pytest.raises(RuntimeError, match="^exp\\(\\): " + NO_AUTOGRAD):
        lib.exp(lib.ones(3), out=lib.empty(3, requires_grad=True))
    with lib.no_grad():
        out = lib.empty(3)
        assert lib.add(b, lib.ones(3), out=out) is out and not out.requires_grad


def test_a_result_that_cannot_be_cast_to_out_is_refused(lib):
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired"):
        lib.add(lib.ones(3), lib.ones(3), out=lib.empty(3, dtype=lib.int64))
    out = lib.empty(3)
    lib.add(lib.ones(3, dtype=lib.int64), 1, out=out)
    assert (out.dtype, out.tolist()) == (lib.float32, [2.0, 2.0, 2.0])


def test_a_tuple_out_takes_each_result(lib):
    values, indices = lib.empty(0), lib.empty(0, dtype=lib.int64)
    result = lib.max(lib.tensor([[1.0, 3.0], [4.0, 2.0]]), 1, out=(values, indices))
    assert result[0] is values and result[1] is indices
    assert (values.tolist(), indices.tolist()) == ([3.0, 4.0], [1, 0])


def test_functions_without_out_refuse_it(lib):
    with pytest.raises(TypeError, match="unexpected keyword argument 'out'"):
        lib.zeros_like(lib.ones(2), out=lib.empty(2))


def test_an_out_form_is_named_after_its_function():
    assert dyngrad.exp.__name__ == "exp" and dyngrad.exp.__code__.co_name == "exp"
    with pytest.raises(TypeError, match="^exp\\(\\)"):
        dyngrad.exp(dyngrad.ones(2), bogus=1)


def _linalg_samples(lib):
    x = lib.tensor([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
    y = lib.tensor([[1.0, 2.0], [0.5, -1.0], [2.0, 0.0]])
    return {
        "cholesky": (x,),
        "cholesky_ex": (x,),
        "cross": (x, x.flip(0)),
        "det": (x,),
        "slogdet": (x,),
        "inv": (x,),
        "inv_ex": (x,),
        "solve": (x, y),
        "solve_ex": (x, y),
        "lstsq": (x, y),
        "matmul": (x, y),
        "matrix_norm": (x,),
        "matrix_power": (x, 2),
        "matrix_rank": (x,),
        "multi_dot": ([x, y],),
        "norm": (x,),
        "qr": (x,),
        "solve_triangular": (x.triu(), y),
        "svd": (x,),
        "svdvals": (x,),
        "vector_norm": (x,),
    }


@pytest.mark.parametrize("name", sorted(_linalg_samples(dyngrad)))
def test_linalg_functions_write_into_out(lib, name):
    args = _linalg_samples(lib)[name]
    kwargs = {"upper": True} if name == "solve_triangular" else {}
    fn = getattr(lib.linalg, name)
    expected = fn(*args, **kwargs)
    multi = isinstance(expected, tuple)
    out = (
        tuple(lib.empty(0, dtype=e.dtype) for e in expected)
        if multi
        else lib.empty(0, dtype=expected.dtype)
    )
    returned = fn(*args, **kwargs, out=out)
    outs, got = (out, returned) if multi else ((out,), (returned,))
    assert all(a is b for a, b in zip(got, outs))
    want = expected if multi else (expected,)
    for o, e in zip(outs, want):  # (torch's out= lstsq differs in the last bits)
        np.testing.assert_allclose(np.array(o.tolist()), np.array(e.tolist()), rtol=1e-6)


def test_linalg_out_refuses_inputs_that_require_grad(lib):
    x = lib.eye(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=re.escape(NO_AUTOGRAD)):
        lib.linalg.det(x, out=lib.empty(()))


def _linalg_calls(lib):
    x = lib.tensor([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]], requires_grad=True)
    y = lib.tensor([[1.0, 2.0], [0.5, -1.0], [2.0, 0.0]])
    v = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    L, e = lib.linalg, lambda dtype=lib.float32: lib.empty(0, dtype=dtype)  # noqa: N806
    info = lib.int32
    return {
        "cholesky": lambda: L.cholesky(x, out=e()),
        "cholesky_ex": lambda: L.cholesky_ex(x, out=(e(), e(info))),
        "cond": lambda: L.cond(x, out=e()),
        "cond_fro": lambda: L.cond(x, "fro", out=e()),
        "cross": lambda: L.cross(x, x.flip(0), out=e()),
        "det": lambda: L.det(x, out=e()),
        "eigh": lambda: L.eigh(x, out=(e(), e())),
        "eigvalsh": lambda: L.eigvalsh(x, out=e()),
        "householder_product": lambda: L.householder_product(x, v[:2].detach(), out=e()),
        "inv": lambda: L.inv(x, out=e()),
        "inv_ex": lambda: L.inv_ex(x, out=(e(), e(info))),
        "lstsq": lambda: L.lstsq(x, y, out=(e(), e(), e(lib.int64), e())),
        "matmul": lambda: L.matmul(x, y, out=e()),
        "matrix_norm": lambda: L.matrix_norm(x, out=e()),
        "matrix_power_-1": lambda: L.matrix_power(x, -1, out=e()),
        "matrix_power_0": lambda: L.matrix_power(x, 0, out=e()),
        "matrix_power_1": lambda: L.matrix_power(x, 1, out=e()),
        "matrix_power_3": lambda: L.matrix_power(x, 3, out=e()),
        "matrix_rank": lambda: L.matrix_rank(x, out=e(lib.int64)),
        "multi_dot": lambda: L.multi_dot([x, x, y], out=e()),
        "norm": lambda: L.norm(v, out=e()),
        "pinv": lambda: L.pinv(x, out=e()),
        "pinv_atol": lambda: L.pinv(x, atol=0.1, out=e()),
        "pinv_hermitian": lambda: L.pinv(x, hermitian=True, out=e()),
        "qr": lambda: L.qr(x, out=(e(), e())),
        "slogdet": lambda: L.slogdet(x, out=(e(), e())),
        "solve": lambda: L.solve(x, y, out=e()),
        "solve_ex": lambda: L.solve_ex(x, y, out=(e(), e(info))),
        "solve_triangular": lambda: L.solve_triangular(x, y, upper=True, out=e()),
        "svd": lambda: L.svd(x, out=(e(), e(), e())),
        "svdvals": lambda: L.svdvals(x, out=e()),
        "tensorinv": lambda: L.tensorinv(x, ind=1, out=e()),
        "tensorsolve": lambda: L.tensorsolve(x, v, out=e()),
        "vecdot": lambda: L.vecdot(v, v, out=e()),
        "vecdot_batch": lambda: L.vecdot(x, v, out=e()),
        "vector_norm": lambda: L.vector_norm(x, out=e()),
    }


@pytest.mark.parametrize("name", sorted(_linalg_calls(dyngrad)))
def test_linalg_out_with_grad_names_torchs_op_or_records_the_copy(torch, name):
    """Each function refuses naming the op PyTorch names; its composites copy, recorded."""

    def outcome(lib):
        try:
            result = _linalg_calls(lib)[name]()
        except RuntimeError as exc:
            return str(exc).split("(")[0]
        results = result if isinstance(result, tuple) else (result,)
        return [(r.requires_grad, type(r.grad_fn).__name__) for r in results]

    assert outcome(dyngrad) == outcome(torch)
