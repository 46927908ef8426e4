"""Specs for shape ops and views: reshape, permute, expand, cat/stack/split, flip/roll/repeat,
diagonals and triangles."""

from __future__ import annotations

import warnings

from .spec import OpSpec, T

S = T((3, 4))
NC = T((3, 4), nc=True)
B = T((2, 3, 4))


def _quietly(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


def _pieces(t, parts):
    # a multi-output op's pieces joined again, each weighted differently so that every
    # piece's gradient is checked
    return t.cat([p.reshape(-1) * (k + 1) for k, p in enumerate(parts)])


SPECS = [
    # in-place view ops (Note [In-place view ops]): on a clone, as a leaf may not be written
    OpSpec(
        "transpose_", lambda t, x: (x * 1).transpose_(0, 1), [(S,)], covers=("transpose_inplace",)
    ),
    OpSpec("t_", lambda t, x: (x * 1).t_(), [(S,)], covers=("t_inplace",)),
    OpSpec(
        "squeeze_",
        lambda t, x: (x * 1).squeeze_(),
        [(T((3, 1, 4)),)],
        covers=("squeeze_inplace",),
    ),
    OpSpec(
        "squeeze_dim_",
        lambda t, x: (x * 1).squeeze_(1),
        [(T((3, 1, 4)),)],
        covers=("squeeze_dim_inplace",),
    ),
    OpSpec(
        "squeeze_dims_",
        lambda t, x: (x * 1).squeeze_((0, 1)),
        [(T((1, 1, 4)),)],
        covers=("squeeze_dims_inplace",),
    ),
    OpSpec(
        "unsqueeze_",
        lambda t, x: (x * 1)[1].unsqueeze_(0),
        [(S,)],
        covers=("unsqueeze_inplace",),
    ),
    OpSpec(
        "reshape_copy",
        lambda t, x: x.reshape(2, 6),
        [(NC,), (S,)],
        covers=("view", "unsafe_view", "clone"),
        ref=lambda np, x: x.reshape(2, 6),
    ),
    OpSpec(
        "reshape_alias",
        lambda t, x: x[:, 1:2].reshape(-1) + x.t().reshape(x.shape[1], 1, x.shape[0]).sum(),
        [(S,), (NC,)],
        covers=("slice", "transpose"),
    ),
    OpSpec(
        "resize_view",  # the deprecated non-inplace resize (it warns): a view, or a copy
        lambda t, x: _quietly(lambda: x.resize(2, 6) * 2 + x.t().resize(2, 6)),
        [(S,), (NC,)],
        covers=("resize_copy",),
    ),
    OpSpec("view_infer", lambda t, x: x.view(-1, 2), [(S,), (T((0, 4)),)], covers=("view",)),
    OpSpec("flatten", lambda t, x: x.flatten(1), [(B,)], covers=("view",)),
    OpSpec("flatten_all", lambda t, x: t.flatten(x), [(T(()),), (NC,)], covers=("view",)),
    OpSpec("unflatten", lambda t, x: x.unflatten(1, (2, -1)), [(S,)], covers=("view",)),
    OpSpec("view_as", lambda t, x, y: x.view_as(y), [(S, T((4, 3), grad=False))], covers=("view",)),
    OpSpec(
        "squeeze_all", lambda t, x: x.squeeze(), [(T((1, 3, 1)),), (T((1,)),)], covers=("squeeze",)
    ),
    OpSpec("unsqueeze_neg", lambda t, x: x.unsqueeze(-1), [(S,), (T(()),)], covers=("unsqueeze",)),
    OpSpec("permute_nc", lambda t, x: x.permute(1, 0), [(NC,)], covers=("permute",)),
    OpSpec("movedim", lambda t, x: t.movedim(x, (0, 1), (2, 0)), [(B,)], covers=("permute",)),
    OpSpec("moveaxis", lambda t, x: x.moveaxis(-1, 0), [(B,)], covers=("permute",)),
    OpSpec("T", lambda t, x: x.T, [(NC,)], covers=("permute",)),
    OpSpec("mT", lambda t, x: x.mT, [(B,)], covers=("transpose",)),
    OpSpec(
        "expand_new_dims",
        lambda t, x: x.expand(2, -1, 4),
        [(T((3, 1)),), (T((3, 4)),)],
        covers=("expand",),
    ),
    OpSpec(
        "expand_as",
        lambda t, x, y: x.expand_as(y),
        [(T((4,)), T((3, 4), grad=False))],
        covers=("expand",),
    ),
    OpSpec(
        "broadcast_to",
        lambda t, x: t.broadcast_to(x, (2, 3, 4)),
        [(T((1, 4)),)],
        covers=("expand",),
    ),
    OpSpec("contiguous", lambda t, x: x.contiguous() * 1, [(NC,)], covers=("clone",)),
    OpSpec(
        "cat",
        lambda t, x, y: t.cat([x, y]),
        [(S, T((2, 4))), (NC, T((1, 4)))],
        ref=lambda np, x, y: np.concatenate([x, y]),
    ),
    OpSpec(
        "cat_dim",
        lambda t, x, y, z: t.cat((x, y, z), dim=-1),
        [(S, T((3, 1)), T((3, 2), nc=True))],
        covers=("cat",),
    ),
    OpSpec("cat_skip_empty", lambda t, x, y: t.cat([x, y], 1), [(S, T((0,)))], covers=("cat",)),
    OpSpec("cat_one", lambda t, x: t.cat([x]), [(S,)], covers=("cat",)),
    OpSpec(
        "stack",
        lambda t, x, y: t.stack([x, y], -1),
        [(S, NC), (T(()), T(()))],
        ref=lambda np, x, y: np.stack([x, y], -1),
    ),
    OpSpec(
        "hstack", lambda t, x, y: t.hstack([x, y]), [(S, S), (T((3,)), T((2,)))], covers=("cat",)
    ),
    OpSpec(
        "vstack", lambda t, x, y: t.vstack([x, y]), [(S, T((4,))), (T(()), T(()))], covers=("cat",)
    ),
    OpSpec("dstack", lambda t, x, y: t.dstack([x, y]), [(S, S)], covers=("cat",)),
    OpSpec("column_stack", lambda t, x, y: t.column_stack([x, y]), [(T((3,)), S)], covers=("cat",)),
    OpSpec("split", lambda t, x: _pieces(t, x.split(2, 1)), [(S,), (T((5, 3)),)]),
    OpSpec("split_one_piece", lambda t, x: x.split(2)[1] * 2, [(S,)], covers=("split",)),
    OpSpec("split_with_sizes", lambda t, x: _pieces(t, x.split([1, 3, 0], 1)), [(S,)]),
    OpSpec("chunk", lambda t, x: _pieces(t, x.chunk(3, 0)), [(T((4, 2)),)], covers=("split",)),
    OpSpec("unbind", lambda t, x: _pieces(t, x.unbind(1)), [(S,), (NC,)]),
    OpSpec("unbind_one", lambda t, x: x.unbind()[2] * 3, [(S,)], covers=("unbind",)),
    OpSpec("unbind_top", lambda t, x: x.unbind(-1)[0], [(S,)], covers=("unbind",)),
    OpSpec("split_top", lambda t, x: x.split([3, 1], 1)[0], [(S,)], covers=("split_with_sizes",)),
    OpSpec(
        "tensor_split", lambda t, x: _pieces(t, t.tensor_split(x, 3, 1)), [(S,)], covers=("slice",)
    ),
    OpSpec("narrow", lambda t, x: x.narrow(1, 1, 2), [(S,), (NC,)], covers=("slice",)),
    OpSpec("select_fn", lambda t, x: t.select(x, 1, -1), [(S,)], covers=("select",)),
    OpSpec(
        "flip",
        lambda t, x: x.flip(0),
        [(S,), (NC,), (T(()),)],
        ref=lambda np, x: np.flip(x, 0) if x.ndim else x,
    ),
    OpSpec("flip_dims", lambda t, x: x.flip((0, 2)), [(B,)], covers=("flip",)),
    OpSpec("flip_keyword", lambda t, x: t.flip(x, dims=[-1, 0]), [(B,)], covers=("flip",)),
    OpSpec("fliplr", lambda t, x: x.fliplr(), [(S,)], covers=("flip",)),
    OpSpec("flipud", lambda t, x: t.flipud(x), [(S,)], covers=("flip",)),
    OpSpec(
        "roll",
        lambda t, x: x.roll(1),
        [(S,), (T(()),)],
        ref=lambda np, x: np.roll(x.reshape(-1), 1).reshape(x.shape),
    ),
    OpSpec(
        "roll_dims",
        lambda t, x: x.roll((1, -5), (0, 1)),
        [(S,), (NC,)],
        covers=("roll",),
        ref=lambda np, x: np.roll(x, (1, -5), (0, 1)),
    ),
    OpSpec(
        "repeat",
        lambda t, x: x.repeat(2, 1, 3),
        [(S,), (T(()),), (NC,)],
        ref=lambda np, x: np.tile(x, (2, 1, 3)),
    ),
    OpSpec("repeat_zero", lambda t, x: x.repeat(0, 2), [(S,)], covers=("repeat",)),
    OpSpec("tile", lambda t, x: x.tile((2,)), [(S,)], covers=("repeat",)),
    OpSpec(
        "repeat_interleave",
        lambda t, x: x.repeat_interleave(2, 1),
        [(S,)],
        covers=("view", "clone", "expand"),
        ref=lambda np, x: np.repeat(x, 2, 1),
    ),
    OpSpec(
        "repeat_interleave_flat",
        lambda t, x: x.repeat_interleave(3),
        [(S,), (T(()),)],
        covers=("view",),
    ),
    OpSpec(
        "repeat_interleave_tensor",
        lambda t, x: x.repeat_interleave(t.tensor([1, 0, 2]), dim=0),
        [(S,)],
        covers=("index_select",),
    ),
    OpSpec("unfold", lambda t, x: x.unfold(1, 2, 1), [(S,), (NC,)], covers=("unfold_backward",)),
    OpSpec("unfold_step", lambda t, x: x.unfold(0, 2, 3), [(T((7, 2)),)], covers=("unfold",)),
    OpSpec(
        "diagonal",
        lambda t, x: x.diagonal(),
        [(S,), (NC,)],
        covers=("diagonal_backward",),
        ref=lambda np, x: np.diagonal(x),
    ),
    OpSpec(
        "diagonal_offset",
        lambda t, x: x.diagonal(-1, 2, 0),
        [(B,)],
        covers=("diagonal", "diagonal_backward"),
        ref=lambda np, x: np.diagonal(x, -1, 2, 0),
    ),
    OpSpec(
        "diag_copy",
        lambda t, x: x.diag(1),
        [(S,)],
        covers=("diagonal_backward",),
        ref=lambda np, x: np.diag(x, 1),
    ),
    OpSpec("diag_embed", lambda t, x: t.diag_embed(x, 1, 0, 2), [(S,)], covers=("diagonal",)),
    OpSpec(
        "diag_vector",
        lambda t, x: t.diag(x, -1),
        [(T((3,)),)],
        covers=("diag_embed",),
        ref=lambda np, x: np.diag(x, -1),
    ),
    OpSpec(
        "trace",
        lambda t, x: x.trace(),
        [(S,), (T((3, 3), nc=True),)],
        ref=lambda np, x: np.trace(x),
    ),
    OpSpec("tril", lambda t, x: x.tril(), [(S,), (B,)], ref=lambda np, x: np.tril(x)),
    OpSpec("triu", lambda t, x: t.triu(x, -1), [(S,), (NC,)], ref=lambda np, x: np.triu(x, -1)),
    OpSpec("tril_inplace", lambda t, x: (x * 1).tril_(1), [(S,)], covers=("tril",)),
]
