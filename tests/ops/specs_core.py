"""Specs for the core ops: arithmetic, exp/log/trig, reductions, views, matmul, indexing."""

from __future__ import annotations

from .spec import OpSpec, T

S = T((3, 4))
BCAST = [
    (T((3, 4)), T((4,))),
    (T((2, 1, 3)), T((4, 1))),
    (T(()), T((3,))),
    (T((3, 4), nc=True), T((3, 4))),
]
POS = (0.5, 2.0)

SPECS = [
    OpSpec(
        "add",
        lambda t, x, y: x + y,
        BCAST + [(S, 2.5)],
        covers=("add_scaled",),
        ref=lambda np, x, y: x + y,
    ),
    OpSpec("add_scaled", lambda t, x, y: t.add(x, y, alpha=-1.5), BCAST[:2]),
    OpSpec("sub", lambda t, x, y: x - y, BCAST + [(S, 1.0)], ref=lambda np, x, y: x - y),
    OpSpec("sub_scaled", lambda t, x, y: t.sub(x, y, alpha=2), BCAST[:2]),
    OpSpec("rsub", lambda t, x, y: t.rsub(x, y), BCAST[:2]),
    OpSpec("rsub_scalar", lambda t, x: 1.0 - x, [(S,)], ref=lambda np, x: 1.0 - x),
    OpSpec("rsub_scaled", lambda t, x, y: t.rsub(x, y, alpha=2), BCAST[:2]),
    OpSpec(
        "rsub_scalar_scaled",
        lambda t, x: t.rsub(x, 1.0, alpha=-1.5),
        [(S,)],
        ref=lambda np, x: 1.0 + 1.5 * x,
    ),
    OpSpec(
        "mul",
        lambda t, x, y: x * y,
        BCAST + [(S, 3.0), (T((0, 4)), T((4,)))],
        ref=lambda np, x, y: x * y,
    ),
    OpSpec(
        "div",
        lambda t, x, y: x / y,
        [(T((3, 4)), T((4,), *POS)), (S, 4.0)],
        ref=lambda np, x, y: x / y,
    ),
    OpSpec(
        "div_mode",
        lambda t, x, y: t.div(x, y, rounding_mode=None),
        [(T((3, 4)), T((4,), *POS)), (S, 4.0)],
        ref=lambda np, x, y: x / y,
    ),
    OpSpec(
        "reciprocal",
        lambda t, x: 2.0 / x,
        [(T((3, 4), *POS),)],
        covers=("reciprocal",),
        ref=lambda np, x: 2.0 / x,
    ),
    OpSpec("neg", lambda t, x: -x, [(S,), (T(()),)], ref=lambda np, x: -x),
    OpSpec("pow", lambda t, x: x**3, [(S,), (T(()),)], ref=lambda np, x: x**3),
    OpSpec(
        "pow_tensor", lambda t, x, y: x**y, [(T((3, 4), *POS), T((4,)))], ref=lambda np, x, y: x**y
    ),
    OpSpec("rpow", lambda t, y: 2.0**y, [(S,)], ref=lambda np, y: 2.0**y),
    OpSpec(
        "exp",
        lambda t, x: t.exp(x),
        [(S,), (T((2, 3), nc=True),), (T(()),)],
        ref=lambda np, x: np.exp(x),
    ),
    OpSpec("log", lambda t, x: t.log(x), [(T((3, 4), *POS),)], ref=lambda np, x: np.log(x)),
    OpSpec("sqrt", lambda t, x: x.sqrt(), [(T((3, 4), *POS),)], ref=lambda np, x: np.sqrt(x)),
    OpSpec("sin", lambda t, x: x.sin(), [(S,)], ref=lambda np, x: np.sin(x)),
    OpSpec("cos", lambda t, x: x.cos(), [(S,)], ref=lambda np, x: np.cos(x)),
    OpSpec("tanh", lambda t, x: x.tanh(), [(S,)], ref=lambda np, x: np.tanh(x)),
    OpSpec("sigmoid", lambda t, x: x.sigmoid(), [(S,)], ref=lambda np, x: 1 / (1 + np.exp(-x))),
    OpSpec("relu", lambda t, x: x.relu(), [(S,)], ref=lambda np, x: np.maximum(x, 0)),
    OpSpec("abs", lambda t, x: x.abs(), [(S,)], ref=lambda np, x: np.abs(x)),
    OpSpec("sign", lambda t, x: x.sign() * x, [(S,)], ref=lambda np, x: np.abs(x), covers=("mul",)),
    OpSpec(
        "clamp", lambda t, x: x.clamp(-0.5, 0.7), [(S,)], ref=lambda np, x: np.clip(x, -0.5, 0.7)
    ),
    OpSpec(
        "clamp_tensor",
        lambda t, x, lo, hi: t.clamp(x, lo, hi),
        [(S, T((4,), -1.0, -0.2), T((3, 1), 0.2, 1.0))],
    ),
    OpSpec(
        "where",
        lambda t, x, y: t.where(x > 0, x, y),
        [(S, T((4,)))],
        ref=lambda np, x, y: np.where(x > 0, x, y),
    ),
    OpSpec("masked_fill", lambda t, x: x.masked_fill(x > 0.5, -1.0), [(S,)]),
    OpSpec("masked_fill_tensor", lambda t, x, v: x.masked_fill(x > 0.5, v), [(S, T(()))]),
    OpSpec("maximum", lambda t, x, y: t.maximum(x, y), BCAST[:2]),
    OpSpec("minimum", lambda t, x, y: t.minimum(x, y), BCAST[:2]),
    OpSpec(
        "sum", lambda t, x: x.sum(), [(S,), (T(()),), (T((0, 3)),)], ref=lambda np, x: np.sum(x)
    ),
    OpSpec("sum_dim", lambda t, x: x.sum(1), [(S,)], ref=lambda np, x: x.sum(1)),
    OpSpec(
        "sum_dim_keepdim",
        lambda t, x: x.sum((0, 2), keepdim=True),
        [(T((2, 3, 4)),)],
        covers=("sum_dim",),
    ),
    OpSpec("mean", lambda t, x: x.mean(), [(S,)], ref=lambda np, x: np.mean(x)),
    OpSpec("mean_dim", lambda t, x: x.mean(-1), [(S,)], ref=lambda np, x: x.mean(-1)),
    OpSpec("max", lambda t, x: x.max(), [(S,)], ref=lambda np, x: np.max(x)),
    OpSpec("min", lambda t, x: x.min(), [(S,)], ref=lambda np, x: np.min(x)),
    OpSpec("max_dim", lambda t, x: x.max(1)[0], [(S,)], ref=lambda np, x: x.max(1)),
    OpSpec("min_dim", lambda t, x: x.min(0, keepdim=True)[0], [(S,)]),
    OpSpec("view", lambda t, x: x.view(4, 3), [(S,)], covers=("reshape",)),
    OpSpec("unsafe_view", lambda t, x: x.t().reshape(-1), [(S,)], covers=("clone",)),
    OpSpec("clone", lambda t, x: x.clone(), [(S,)]),
    OpSpec("transpose", lambda t, x: x.transpose(0, 2), [(T((2, 3, 4)),)]),
    OpSpec("t", lambda t, x: x.t(), [(S,)]),
    OpSpec("permute", lambda t, x: x.permute(2, 0, 1), [(T((2, 3, 4)),)]),
    OpSpec("expand", lambda t, x: x.expand(2, 3, 4), [(T((3, 1)),)]),
    OpSpec("squeeze", lambda t, x: x.squeeze(), [(T((3, 1, 2)),)]),
    OpSpec("squeeze_dim", lambda t, x: x.squeeze(1), [(T((3, 1, 2)),)]),
    OpSpec("squeeze_dims", lambda t, x: x.squeeze((0, 2)), [(T((1, 3, 1)),)]),
    OpSpec("unsqueeze", lambda t, x: x.unsqueeze(-1), [(S,)]),
    OpSpec("sum_to_size", lambda t, x: x.sum_to_size(1, 4), [(S,)], torch_names=False),
    OpSpec("select", lambda t, x: x[1], [(S,)], covers=("embed",)),
    OpSpec("slice", lambda t, x: x[1:, ::2], [(S,)], covers=("embed",)),
    OpSpec("alias", lambda t, x: x[...], [(S,)]),
    OpSpec("index", lambda t, x: x[t.tensor([0, 2, 0])], [(S,)], covers=("index_add_zeros",)),
    OpSpec("index_mask", lambda t, x: x[x > 0], [(S,)], covers=("index",), gradgrad=False),
    OpSpec(
        "index_put", lambda t, x, v: x.clone().index_put_((t.tensor([0, 2]),), v), [(S, T((4,)))]
    ),
    OpSpec("mm", lambda t, x, y: x @ y, [(T((3, 4)), T((4, 2)))], ref=lambda np, x, y: x @ y),
    OpSpec("bmm", lambda t, x, y: t.bmm(x, y), [(T((2, 3, 4)), T((2, 4, 2)))]),
    OpSpec("mv", lambda t, x, y: x @ y, [(T((3, 4)), T((4,)))]),
    OpSpec("dot", lambda t, x, y: x @ y, [(T((4,)), T((4,)))]),
    OpSpec(
        "matmul",
        lambda t, x, y: x @ y,
        [(T((2, 3, 4)), T((4, 2))), (T((2, 1, 3, 4)), T((3, 4, 2)))],
    ),
    OpSpec("squeeze_row", lambda t, x, y: x @ y, [(T((4,)), T((4, 2)))]),
    # float64 -> float32 loses digits, so the numerical Jacobian is only good to ~1e-2
    OpSpec(
        "to_copy",
        lambda t, x: x.to(t.float32) if x.dtype == t.float64 else x.double(),
        [(S,)],
        grad_atol=5e-2,
        grad_rtol=5e-2,
    ),
    OpSpec(
        "gather",
        lambda t, x: t.gather(x, 1, t.tensor([[0, 0], [1, 3], [2, 2]])),
        [(S,)],
        covers=("scatter_zeros",),
    ),
    OpSpec(
        "copy",
        lambda t, x, y: t.zeros(3, 4, dtype=x.dtype).copy_(y) * x,
        [(S, T((4,)))],
        covers=("mul",),
    ),
    OpSpec("fill", lambda t, x: x.clone().fill_(2.0) + x, [(S,)]),
    OpSpec("zero", lambda t, x: x.clone().zero_() + x, [(S,)]),
]
