"""Shape ops against torch: argument forms, 0-d and empty inputs, errors, and view semantics
(shared memory, shared version counter, writes through views, multi-output views)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngrad

from .oracle import same

ENV = {
    "x": np.arange(12.0, dtype=np.float32).reshape(3, 4),
    "v": np.arange(4.0, dtype=np.float32),
    "s": np.array(2.0, dtype=np.float32),
    "b": np.arange(24.0, dtype=np.float32).reshape(2, 3, 4),
    "i": np.arange(4),
    "e": np.zeros(0, dtype=np.float32),
    "z": np.zeros((0, 3), dtype=np.float32),
}

VALUES = """x.reshape(4, 3) | x.reshape(-1) | x.reshape((2, -1)) | x.reshape(5, -1) | x.reshape(-1, -1)
x.t().reshape(-1) | x.view(4, 3) | x.t().view(-1) | x.view(-1, 0) | z.view(-1, 0) | x.view_as(x.t())
x.flatten() | b.flatten(1) | b.flatten(0, 1) | b.flatten(2, 0) | s.flatten() | s.flatten(1)
x.unflatten(1, (2, 2)) | x.unflatten(-1, (2, -1)) | x.unflatten(0, (2, 2))
x.squeeze() | x[None].squeeze(0) | x[:, None].squeeze((0, 1)) | s.squeeze() | s.squeeze(0) | x.squeeze(2)
x.unsqueeze(0) | x.unsqueeze(-1) | s.unsqueeze(0) | x.unsqueeze(3) | x.permute(1, 0) | b.permute(2, 0, 1)
b.permute((2, 0, 1)) | b.permute(0, 1) | b.permute(0, 0, 1) | b.transpose(0, 2) | x.t() | b.t() | x.T
b.mT | v.mT | x.expand(2, 3, 4) | v.expand(3, -1) | x.expand(3, 5) | x.expand(-1, 3, 4) | x.expand(4)
v.expand_as(x) | t.broadcast_to(v, (2, 4)) | x.contiguous() | x.t().contiguous()
x.movedim(0, 1) | x.movedim(0, -1) | b.movedim((0, 1), (2, 0)) | x.movedim((0, 1), (1,))
x.movedim(0, 2) | x.movedim((0, 0), (1, 0)) | t.moveaxis(b, -1, 0) | x.swapaxes(0, 1) | x.swapdims(1, 0)
x.repeat(2) | x.repeat(2, 2, 1) | x.repeat((2, 1)) | x.repeat([2, 1]) | x.repeat(0, 1) | x.repeat(-1, 1)
s.repeat(3) | x.tile(2) | x.tile((2, 1, 1)) | x.tile(()) | s.tile(2) | x.repeat_interleave(2)
x.repeat_interleave(2, 0) | x.repeat_interleave(2, dim=-1) | x.repeat_interleave(i[:3], dim=0)
x.repeat_interleave(i[:3]) | x.repeat_interleave(t.tensor([2]), dim=0) | x.repeat_interleave(t.tensor(2), dim=0)
x.repeat_interleave(t.tensor([1, 2]), dim=0) | x.repeat_interleave(-1) | t.repeat_interleave(i)
s.repeat_interleave(3) | x.repeat_interleave(t.tensor([1, -1, 1]), dim=0)
x.flip(0) | x.flip((0, 1)) | x.flip([0, 1]) | x.flip(0, 1) | x.flip(()) | x.flip(2) | x.flip(0, 0)
s.flip(0) | x.fliplr() | v.fliplr() | x.flipud() | s.flipud()
x.roll(1) | x.roll(-5, 1) | x.roll((1, 2), (0, 1)) | x.roll(1, (0, 1)) | x.roll((1, 2), 0) | s.roll(1)
s.roll(1, 0) | e.roll(1) | z.roll(2, 1)
x.narrow(0, 1, 2) | x.narrow(-1, 1, 2) | x.narrow(0, 2, 2) | x.narrow(0, -1, 1) | x.narrow(0, 4, 0)
x.narrow(0, 3, 0) | x.narrow(0, -4, 1) | x.narrow(0, t.tensor(1), 2) | x.narrow(2, 0, 1) | x.narrow(0, 0, -1)
s.narrow(0, 0, 1) | x.select(0, 1) | x.select(1, -1) | x.select(0, 3) | x.select(2, 0) | s.select(0, 0)
x.diag() | x.diag(1) | x.diag(-2) | x.diag(5) | v.diag() | v.diag(-1) | s.diag() | b.diag()
x.diagonal() | x.diagonal(1) | x.diagonal(offset=-1, dim1=1, dim2=0) | x.diagonal(0, 0, 0)
x.diagonal(0, 0, 2) | x.diagonal(10) | v.diagonal() | b.diagonal(1, 2, 0) | t.diag_embed(v)
t.diag_embed(v, 1) | t.diag_embed(x, 0, 0, 2) | t.diag_embed(x, -1, -2, -1) | t.diag_embed(x, 0, 1, 1)
x.tril() | x.tril(-1) | x.triu(2) | x.triu(-10) | v.tril() | s.triu() | b.tril(1) | b.triu(-1)
x.trace() | b.trace() | v.trace() | t.arange(6).reshape(2, 3).trace()
x.unfold(1, 2, 1) | x.unfold(0, 2, 2) | x.unfold(1, 5, 1) | x.unfold(1, 0, 1) | x.unfold(1, 2, 0)
s.unfold(0, 1, 1) | x.unfold(-1, 3, 2)
x.chunk(2) | x.chunk(5, 1) | x.chunk(3, 1) | x.chunk(0) | x.split(2) | x.split(2, 1) | x.split(5)
x.split([1, 2]) | x.split([1, 1]) | x.split([1, 2, 0]) | x.split(0) | x.split(-1) | x.unbind()
x.unbind(1) | x.unbind(-1) | s.unbind() | z.unbind() | t.split(x, 2) | t.split(x, [1, 3], 1)
x.split_with_sizes([1, 2]) | t.unbind(x, 1) | t.chunk(x, 2, -1) | t.tensor_split(x, 2)
x.tensor_split([1, 2]) | x.tensor_split(3, 1) | z.split(2) | z.chunk(2) | z.split(0) | z.chunk(2, 1)
t.cat([x, x]) | t.cat((x, x), 1) | t.cat([x, x], dim=-1) | t.cat([x]) | t.cat([]) | t.cat([x, v])
t.cat([x, x[:, :2]]) | t.cat([x, x[:2]], 1) | t.cat([v, i]) | t.cat([i, i.double()]) | t.cat([x, e])
t.cat([e, x], 1) | t.cat([e, e]) | t.cat([s, s]) | t.cat([x, x], 2) | t.cat([v, v], 1) | t.cat(x)
t.cat([x, 1]) | t.concat([x, x]) | t.concatenate([x, x], axis=1) | t.stack([x, x]) | t.stack([x, x], 2)
t.stack([x, x], -1) | t.stack([x, x], 3) | t.stack([v, v[:2]]) | t.stack([]) | t.stack([s, s])
t.stack([v, i]) | t.hstack([x, x]) | t.hstack([v, v]) | t.hstack([s, s]) | t.vstack([x, v])
t.vstack([v, v]) | t.vstack([s, s]) | t.row_stack([v, v]) | t.dstack([v, v]) | t.dstack([x, s])
t.column_stack([v, v]) | t.column_stack([x[:, 0], x]) | t.hstack([]) | t.vstack([]) | t.stack([x], -4)
t.atleast_1d(s) | t.atleast_2d(v) | t.atleast_3d(x) | t.atleast_3d(v) | t.atleast_2d([s, v])"""

EXPRS = [e.strip() for line in VALUES.splitlines() for e in line.split("|")]


@pytest.mark.parametrize("expr", EXPRS)
def test_shape_op_matches_torch(torch, expr):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(torch, expr, requires_grad=True, **ENV)


VIEWS = [
    "x.view(4, 3)",
    "x.reshape(2, 6)",
    "x.t()",
    "x.T",
    "x.permute(1, 0)",
    "x[1]",
    "x[:, 1:]",
    "x.narrow(1, 1, 2)",
    "x.select(0, 2)",
    "x.diagonal()",
    "x.diagonal(1)",
    "x.unfold(1, 2, 1)",
    "x.movedim(0, 1)",
    "x.unsqueeze(0)",
    "x[None].squeeze(0)",
    "x.expand(2, 3, 4)",
    "x.flatten()",
    "x.mT",
    "x.unflatten(1, (2, 2))",
    "x.view_as(x)",
]


@pytest.mark.parametrize("expr", VIEWS)
def test_views_share_memory_and_version(torch, expr):
    for module in (dyngrad, torch):
        x = module.arange(12.0).reshape(3, 4)
        v = eval(expr, {"x": x})
        assert v._base is not None, (module.__name__, expr)
        before = v._version
        x.add_(1)
        assert v._version == before + 1
        assert v.flatten()[0].item() == eval(expr, {"x": x}).flatten()[0].item()


@pytest.mark.parametrize(
    "expr",
    [
        "x.flip(0)",
        "x.roll(1)",
        "x.repeat(1, 1)",
        "x.tril()",
        "x.diag()",
        "t.cat([x])",
        "t.stack([x])",
        "x.t().contiguous()",
        "x.t().reshape(-1)",
    ],
)
def test_copies_are_not_views(torch, expr):
    for module in (dyngrad, torch):
        x = module.arange(12.0).reshape(3, 4)
        y = eval(expr, {"x": x, "t": module})
        x.add_(1)
        assert y.flatten()[0].item() in (0.0, 8.0, 11.0), (module.__name__, expr)
        assert y._base is None


@pytest.mark.parametrize(
    "expr",
    [
        "x.narrow(1, 1, 2)",
        "x.diagonal()",
        "x.select(1, 0)",
        "x.unfold(1, 2, 2)",
        "x.movedim(0, 1)",
        "x.t()[1:]",
    ],
)
def test_write_through_view_rewrites_base_history(torch, expr):
    """An in-place op on a view changes the base's values and gradients (CopySlices)."""
    results = []
    for module in (dyngrad, torch):
        a = module.arange(1.0, 13.0, dtype=module.float64).reshape(3, 4).requires_grad_()
        base = a * 1
        view = eval(expr, {"x": base})
        view.mul_(view + 2)
        (base * base).sum().backward()
        results.append((base.detach().numpy(), a.grad.numpy(), base.grad_fn.name()))
    for ours, theirs in zip(*results):
        if isinstance(ours, str):
            assert ours == theirs
        else:
            np.testing.assert_allclose(ours, theirs)


@pytest.mark.parametrize("split", ["x.unbind()", "x.split(2)", "x.chunk(2, 1)", "x.split([1, 2])"])
def test_multi_output_views_refuse_inplace(torch, split):
    messages = []
    for module in (dyngrad, torch):
        x = module.ones(3, 4, requires_grad=True) * 1
        parts = eval(split, {"x": x})
        assert parts[0]._base is x
        with pytest.raises(RuntimeError) as info:
            parts[1].mul_(2)
        messages.append(str(info.value).splitlines()[0])
        x.add_(1)  # writing into the base makes the pieces unusable, too
        with pytest.raises(RuntimeError) as info:
            (parts[0] * 2).sum().backward()
        messages.append(str(info.value).splitlines()[0])
    assert messages[:2] == messages[2:]


def test_multi_output_views_without_grad_allow_inplace():
    x = dyngrad.zeros(3, 4)
    parts = x.unbind()
    parts[1].fill_(5.0)
    assert x[1].tolist() == [5.0] * 4


def test_unbind_gradient_with_unused_pieces(torch):
    grads = []
    for module in (dyngrad, torch):
        x = module.arange(12.0).reshape(3, 4).requires_grad_()
        a, _, c = x.unbind()
        (a * 2 + c).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(*grads)


def test_transpose_of_non_matrix_warns():
    with pytest.warns(UserWarning, match="The use of `x.T` on tensors of dimension other than 2"):
        dyngrad.zeros(2, 3, 4).T
