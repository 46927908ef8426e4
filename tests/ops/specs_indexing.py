"""Specs for indexing: __getitem__/__setitem__, gather/scatter, index_*, masked_*, take."""

from __future__ import annotations

from .spec import OpSpec, T

S = T((3, 4))
NC = T((3, 4), nc=True)
B = T((2, 3, 4))


def _ix(t, *rows):
    return t.tensor(list(rows))


def _setitem(key):
    def run(t, x, v):
        y = x * 1
        y[key(t)] = v
        return y

    return run


SPECS = [
    OpSpec(
        "getitem_basic",
        lambda t, x: x[1:, None, ..., -1],
        [(B,), (T((2, 3, 4), nc=True),)],
        covers=("slice", "select", "unsqueeze", "embed"),
    ),
    OpSpec("getitem_step", lambda t, x: x[::2, 1::3], [(S,), (NC,)], covers=("slice",)),
    OpSpec("getitem_int_tensor", lambda t, x: x[t.tensor(1)], [(S,)], covers=("select",)),
    OpSpec("getitem_list", lambda t, x: x[[2, 0, 2]], [(S,)], covers=("index", "index_add_zeros")),
    OpSpec("getitem_two_lists", lambda t, x: x[[0, 2], [1, 1]], [(S,)], covers=("index",)),
    OpSpec(
        "getitem_mixed",
        lambda t, x: x[:, t.tensor([[0, 1], [1, 0]]), 1:],
        [(B,)],
        covers=("index",),
    ),
    OpSpec(
        "getitem_split_adv",
        lambda t, x: x[t.tensor([1, 0]), :, t.tensor([3, 2])],
        [(B,)],
        covers=("index",),
    ),
    OpSpec(
        "getitem_bool_vector",
        lambda t, x: x[t.tensor([True, False, True])],
        [(S,)],
        covers=("index",),
    ),
    OpSpec(
        "getitem_none_ellipsis",
        lambda t, x: x[None, ..., None],
        [(S,), (T(()),)],
        covers=("unsqueeze", "alias"),
    ),
    OpSpec(
        "setitem_basic",
        _setitem(lambda t: (slice(None), 1)),
        [(S, T((3,))), (S, T(()))],
        covers=("copy",),
    ),
    OpSpec(
        "setitem_advanced",
        _setitem(lambda t: t.tensor([0, 2])),
        [(S, T((4,)))],
        covers=("index_put",),
    ),
    OpSpec(
        "setitem_mask",
        _setitem(lambda t: t.tensor([True, False, True])),
        [(S, T(()))],
        covers=("index_put",),
    ),
    OpSpec(
        "index_put_accumulate",
        lambda t, x, v: x.index_put((t.tensor([0, 2, 0]),), v, accumulate=True),
        [(S, T((3, 4)))],
        covers=("index_put",),
    ),
    OpSpec(
        "gather_dim0",
        lambda t, x: t.gather(x, 0, _ix(t, [2, 0, 1], [0, 0, 2])),
        [(S,)],
        covers=("gather", "scatter_zeros"),
    ),
    OpSpec(
        "gather_smaller",
        lambda t, x: x.gather(1, _ix(t, [3, 3, 0])),
        [(NC,)],
        covers=("gather", "scatter_zeros"),
    ),
    OpSpec(
        "take_along_dim",
        lambda t, x: t.take_along_dim(x, _ix(t, [1], [0], [3]), 1),
        [(S,)],
        covers=("gather",),
    ),
    # torch's own backward fails when src is larger than index, so src matches index here
    OpSpec(
        "scatter",
        lambda t, x, s: x.scatter(1, _ix(t, [0, 2], [3, 1]), s),
        [(S, T((2, 2))), (NC, T((2, 2)))],
    ),
    OpSpec("scatter_value", lambda t, x: t.scatter(x, 0, _ix(t, [1, 0, 2, 2]), 0.5), [(S,)]),
    OpSpec(
        "scatter_add",
        lambda t, x, s: x.scatter_add(0, _ix(t, [1, 1, 0], [1, 2, 2]), s),
        [(S, T((2, 3))), (NC, T((2, 3), nc=True))],
    ),
    OpSpec(
        "scatter_inplace",
        lambda t, x, s: (x * 1).scatter_(1, _ix(t, [1], [2], [0]), s),
        [(S, T((3, 1)))],
        covers=("scatter",),
    ),
    OpSpec(
        "scatter_add_inplace",
        lambda t, x, s: (x * 1).scatter_add_(1, _ix(t, [1, 1], [2, 0], [0, 3]), s),
        [(S, T((3, 2)))],
        covers=("scatter_add",),
    ),
    OpSpec("index_select", lambda t, x: x.index_select(1, t.tensor([3, 0, 3])), [(S,), (NC,)]),
    OpSpec(
        "index_select_0d",
        lambda t, x: t.index_select(x, 0, t.tensor([0])),
        [(T(()),)],
        covers=("index_select",),
    ),
    OpSpec(
        "index_add",
        lambda t, x, s: x.index_add(0, t.tensor([2, 0, 2]), s, alpha=-1.5),
        [(S, T((3, 4))), (NC, T((3, 4), nc=True))],
    ),
    OpSpec(
        "index_add_inplace",
        lambda t, x, s: (x * 1).index_add_(1, t.tensor([1, 1]), s),
        [(S, T((3, 2)))],
        covers=("index_add",),
    ),
    OpSpec("index_copy", lambda t, x, s: x.index_copy(1, t.tensor([3, 0]), s), [(S, T((3, 2)))]),
    OpSpec(
        "index_copy_inplace",
        lambda t, x, s: (x * 1).index_copy_(0, t.tensor([1]), s),
        [(S, T((1, 4)))],
        covers=("index_copy",),
    ),
    OpSpec("index_fill", lambda t, x: x.index_fill(1, t.tensor([0, -1, 0]), -2.0), [(S,)]),
    OpSpec("index_fill_tensor", lambda t, x, v: x.index_fill(0, t.tensor([2, 2]), v), [(S, T(()))]),
    OpSpec(
        "index_fill_inplace",
        lambda t, x: (x * 1).index_fill_(1, t.tensor([2]), 1.0),
        [(S,)],
        covers=("index_fill",),
    ),
    OpSpec(
        "masked_select",
        lambda t, x: x.masked_select(x > 0),
        [(S,), (NC,)],
        covers=("masked_scatter",),
    ),
    OpSpec(
        "masked_select_broadcast",
        lambda t, x: t.masked_select(x, t.tensor([[True], [False], [True]])),
        [(T((4,)),)],
        covers=("masked_select", "masked_scatter"),
    ),
    OpSpec(
        "masked_scatter",
        lambda t, x, s: x.masked_scatter(x > 0, s),
        [(S, T((3, 4))), (S, T((20,)))],
        covers=("masked_select",),
    ),
    OpSpec(
        "masked_scatter_inplace",
        lambda t, x, s: (x * 1).masked_scatter_(t.tensor([True, False, True, True]), s),
        [(S, T((4, 3)))],
        covers=("masked_scatter",),
    ),
    OpSpec(
        "masked_fill_inplace",
        lambda t, x: (x * 1).masked_fill_(x < 0, 0.25),
        [(S,)],
        covers=("masked_fill",),
    ),
    OpSpec(
        "take",
        lambda t, x: x.take(t.tensor([[0, 11], [-1, 5]])),
        [(S,), (NC,)],
        covers=("index_add",),
    ),
]
