"""Indexing against torch: every key form of __getitem__/__setitem__, gather/scatter and the
index_*/masked_*/take family, with their values, gradients, node names and error messages."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

from .oracle import same, same_grads

ENV = {
    "x": np.arange(12.0).reshape(3, 4) - 4,
    "b": np.arange(24.0).reshape(2, 3, 4),
    "v": np.arange(4.0),
    "s": np.array(2.0),
    "I": np.array([[0, 1], [2, 0]]),
}

KEYS = """x[0] | x[-1] | x[3] | x[-4] | x[:, 1] | x[:, 4] | x[1:] | x[1:3, ::2] | x[::-1] | x[None]
x[..., 1] | x[..., None] | x[None, ..., None] | x[...] | x[:] | x[:, :] | x[0, 0] | x[1, -1]
x[5:] | x[-10:2] | x[2:1] | x[0, 1, 2] | x[..., ...] | b[1, ..., 2] | b[:, None, 1:, -1]
x[[0, 1]] | x[[2, 0, 2]] | x[t.tensor([0, 1])] | x[t.tensor([[0, 1], [2, 2]])] | x[[0, 1], [1, 3]]
x[0, [1, 2]] | x[:, [1, 2]] | x[[0, 5]] | x[[-1, -3]] | x[x > 0] | x[x[:, 0] > -4]
x[t.tensor([True, False, True])] | x[t.tensor([True, False])] | x[[True, False, True]]
b[:, [0, 2], 1:] | b[[1, 0], :, [3, 2]] | b[[1, 0], 1, [3, 2]] | b[..., [0, 0]] | b[None, [1], [2]]
b[t.tensor(1)] | b[t.tensor([[1]])] | x[t.tensor(1.0)] | x[t.tensor([1.0])] | x[1.5] | x['a']
x[True] | x[False] | s[None] | s[...] | s[()] | s[0] | s[True] | v[t.tensor([], dtype=t.long)]
x[t.tensor([0, 1]), t.tensor([[0], [1]])] | x[[0, 1], [0, 1, 2]] | b[x > 0] | b[b > 5]"""

EXPRS = [e.strip() for line in KEYS.splitlines() for e in line.split("|")]


@pytest.mark.filterwarnings("ignore::UserWarning")  # torch's own, for x['a']
@pytest.mark.parametrize("expr", EXPRS)
def test_getitem_matches_torch(torch, expr):
    same(torch, expr, requires_grad=True, **ENV)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("expr", [e for e in EXPRS if "x[" in e or "b[" in e])
def test_getitem_gradients_match_torch(torch, expr):
    _check_grads(torch, expr)


def _check_grads(torch, expr):
    _, out, exc = _try(torch, expr)
    if exc is not None or not isinstance(out, torch.Tensor) or not out.requires_grad:
        return
    try:  # torch's own scatter backward fails when src is larger than index
        out.sum().backward()
    except RuntimeError:
        return
    same_grads(torch, expr, **ENV)


def _try(module, expr):
    env = {k: module.tensor(v, requires_grad=v.dtype.kind == "f") for k, v in ENV.items()}
    env["t"] = module
    try:
        return env, eval(expr, {}, env), None
    except Exception as exc:  # noqa: BLE001
        return env, None, exc


SETS = [
    ("[1]", "5.0"),
    ("[:, 1]", "v[:3]"),
    ("[..., 0]", "v[0]"),
    ("[[0, 2]]", "v"),
    ("[x > 0]", "0.0"),
    ("[x > 0]", "v[:1]"),
    ("[1:, ::2]", "x[:2, :2] * 2"),
    ("[[0, 0], [1, 1]]", "v[:2]"),
    ("[None, 0]", "v"),
    ("[:, [3, 1]]", "x[:, :2]"),
    ("[t.tensor([True, False, True])]", "1.5"),
    ("[0, 9]", "1.0"),
    ("[[5]]", "1.0"),
    ("[:, 1]", "v"),
    ("[0]", "t.ones(2)"),
    ("[x > 0]", "v[:2]"),
]


@pytest.mark.parametrize("key,value", SETS)
def test_setitem_under_grad_matches_torch(torch, key, value):
    """Basic keys write through a view (CopySlices); advanced ones go through index_put_."""
    results = []
    for module in (dyngrad, torch):
        env = {k: module.tensor(a, requires_grad=a.dtype.kind == "f") for k, a in ENV.items()}
        env["t"] = module
        try:
            exec(f"y = x * 1\ny{key} = {value}", {}, env)
            y = env["y"]
        except (RuntimeError, IndexError) as exc:
            results.append(type(exc).__name__ + str(exc).splitlines()[0])
            continue
        (y * module.tensor(np.arange(12.0).reshape(3, 4))).sum().backward()
        results.append((y.detach().numpy(), env["x"].grad.numpy(), env["v"].grad, y.grad_fn.name()))
    ours, theirs = results
    if isinstance(theirs, str):
        assert ours == theirs
        return
    np.testing.assert_allclose(ours[0], theirs[0])
    np.testing.assert_allclose(ours[1], theirs[1])
    assert (ours[2] is None) == (theirs[2] is None)
    if theirs[2] is not None:
        np.testing.assert_allclose(ours[2].numpy(), theirs[2].numpy())
    assert ours[3] == theirs[3]


OPS = """x.gather(1, I) | x.gather(0, I) | x.gather(1, t.tensor([[0, 4]])) | x.gather(1, t.tensor([[0, -1]]))
x.gather(1, t.tensor([0, 1])) | x.gather(1, I.double()) | x.gather(1, t.tensor([[0, 1, 2, 3, 0]]))
x.gather(1, t.tensor([[0], [1], [2], [0]])) | x.gather(2, I) | s.gather(0, t.tensor(0)) | x.gather(1, I.int())
v.gather(0, t.tensor([3, 3])) | x.take_along_dim(t.tensor([[0], [1], [2]]), dim=1) | x.take_along_dim(t.tensor([0, 5]))
x.scatter(1, I, 5.0) | x.scatter(1, I, x) | x.scatter(1, I, v) | x.scatter(1, t.tensor([[0, 9]]), 1.0)
x.scatter(1, I.double(), 1.0) | x.scatter(1, I.int(), 1.0) | x.scatter(1, t.tensor([0, 1]), 1.0)
x.scatter(1, t.tensor([[0], [1], [2], [0]]), 1.0) | x.scatter(1, t.tensor([[0, 1, 2]]), x[:, :2])
x.scatter(1, I, x.float()) | x.scatter(1, t.tensor([[0, -1]]), 1.0) | x.scatter(1, I, src=x)
x.scatter(1, I, value=3) | t.scatter(x, 1, I, 2.0) | t.zeros(3, dtype=t.long).scatter(0, t.tensor([0]), 2.5)
x.scatter_add(1, I, x) | x.scatter_add(1, I, x.float()) | x.scatter_add(1, I, t.ones(1, 1, dtype=t.float64))
x.scatter_add(1, t.tensor([[0, 5]]), x) | t.zeros(3).scatter_add(0, t.tensor([0, 0]), t.tensor([1.0, 2.0]))
x.index_select(0, t.tensor([0, 2, 0])) | x.index_select(1, t.tensor([[0]])) | x.index_select(1, t.tensor(1))
x.index_select(0, t.tensor([3])) | x.index_select(0, t.tensor([-1])) | x.index_select(0, t.tensor([0.0]))
s.index_select(0, t.tensor([0])) | x.index_add(0, t.tensor([0, 2, 0]), x) | x.index_add(0, t.tensor([0, 2, 0]), x, alpha=2)
x.index_add(0, t.tensor([0, 2]), x) | x.index_add(0, t.tensor([0, 5]), x[:2]) | x.index_add(0, t.tensor([0, 2]), x[:2, :3])
x.index_add(0, t.tensor([0, 2]), x[:2].float()) | x.index_add(0, t.tensor([[0, 0]]), x[:2])
x.index_add(0, t.tensor([0, 0.0]), x[:2]) | x.index_add(0, t.tensor([-1]), x[:1]) | s.index_add(0, t.tensor([0]), s)
x.index_copy(0, t.tensor([0, 2]), x[:2]) | x.index_copy(1, t.tensor([0, 2]), x[:, :2]) | x.index_copy(0, t.tensor([0, 0]), x[:2])
x.index_copy(0, t.tensor([0, 5]), x[:2]) | x.index_copy(0, t.tensor([0]), x[:2]) | x.index_copy(0, t.tensor([0]), x[:1].float())
x.index_copy(0, t.tensor([-1]), x[:1]) | s.index_copy(0, t.tensor([0]), s)
x.index_fill(1, t.tensor([0, 2]), -1.0) | x.index_fill(1, t.tensor([0, 2]), s) | x.index_fill(1, t.tensor([0, 2]), v[:1])
x.index_fill(0, t.tensor([0, 5]), 1.0) | x.index_fill(0, t.tensor([-1]), 1.0) | x.index_fill(0, t.tensor([0.0]), 1.0)
x.index_fill(2, t.tensor([0]), 1.0) | s.index_fill(0, t.tensor([0]), 1.0) | x.index_fill(1, t.tensor([1, 1]), s)
x.masked_select(x > 0) | x.masked_select(t.tensor([True, False, True, False])) | x.masked_select(t.tensor([1, 0, 1, 0]))
x.masked_select(t.ones(2, 4, dtype=t.bool)) | v.masked_select(t.tensor([[True], [False]]))
x.masked_scatter(x > 0, x * 7) | x.masked_scatter(x > 0, v[:3]) | x.masked_scatter(t.tensor([True, False, True, False]), b.flatten())
x.masked_scatter(t.tensor([1, 0, 1, 0]), x) | x.masked_scatter(x > 0, x.float())
x.masked_fill(x > 0, 1.0) | x.masked_fill(x > 0, s) | x.masked_fill(x > 0, v[:1]) | x.masked_fill(t.tensor([1, 0, 1, 0]), 1.0)
x.masked_fill(t.tensor([True, False, True, False]), 2) | x.take(t.tensor([0, 11, -1])) | x.take(t.tensor([[0, 5]]))
x.take(t.tensor([12])) | x.take(t.tensor([-13])) | x.take(t.tensor([0.0])) | s.take(t.tensor([0, 0]))
x.nonzero() | x.nonzero(as_tuple=True) | s.nonzero() | s.nonzero(as_tuple=True) | t.nonzero(v)
t.argwhere(x) | t.zeros(0, 3).nonzero() | t.where(x > 0) | x.index_put((t.tensor([0, 2]),), v)
x.index_put((t.tensor([0, 0]),), v, accumulate=True) | x.index_put((t.tensor([1]), t.tensor([2])), s)"""

OP_EXPRS = [e.strip() for line in OPS.splitlines() for e in line.split("|")]


@pytest.mark.parametrize("expr", OP_EXPRS)
def test_index_ops_match_torch(torch, expr):
    same(torch, expr, requires_grad=True, **ENV)


@pytest.mark.parametrize(
    "expr", [e for e in OP_EXPRS if "nonzero" not in e and "where" not in e and "argwhere" not in e]
)
def test_index_op_gradients_match_torch(torch, expr):
    _check_grads(torch, expr)


def test_inplace_index_ops_bump_version_and_keep_history(torch):
    for module in (dyngrad, torch):
        x = module.zeros(3, 4, dtype=module.float64, requires_grad=True)
        y = x * 1
        y.index_add_(0, module.tensor([0, 0]), module.ones(2, 4, dtype=module.float64))
        y.scatter_(1, module.tensor([[1], [2], [3]]), 7.0)
        y.index_fill_(1, module.tensor([0]), -1.0)
        y.masked_scatter_(y > 5, module.arange(12.0, dtype=module.float64))
        assert y._version == 4
        assert y.grad_fn.name() == "MaskedScatterBackward0"
        y.sum().backward()
        assert x.grad[:, 0].tolist() == [0.0, 0.0, 0.0]
