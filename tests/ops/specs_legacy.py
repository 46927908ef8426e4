"""Specs for the API real programs still use: scatter_reduce, nanmedian, as_strided(_),
unsafe_split."""

from __future__ import annotations

from .spec import OpSpec, T

S = T((3, 4))
NAN = float("nan")


def _ix(t):
    # repeats (reductions over several values), a position no one reaches (column 3 of row 0)
    return t.tensor([[0, 2, 2, 1], [3, 3, 0, 0], [1, 1, 1, 1]])


def _scatter_reduce(reduce, include_self):
    return lambda t, x, s: x.scatter_reduce(1, _ix(t), s, reduce, include_self=include_self)


def _pieces(t, parts):
    return t.cat([p.reshape(-1) * (k + 1) for k, p in enumerate(parts)])


def _with_nans(t, x):
    # NaN at fixed places (no slice all NaN: PyTorch's index there is unspecified)
    keep = t.tensor([[True, False, True, True], [False, True, True, False], [True] * 4])
    return t.where(keep, x, NAN)


def _index_reduce(reduce, include_self):
    return lambda t, x, s: x.index_reduce(
        0, t.tensor([0, 2, 0, 0]), s, reduce, include_self=include_self
    )


SPECS = [
    *[
        OpSpec(
            f"index_reduce_{reduce}" + ("" if include_self else "_exclude_self"),
            _index_reduce(reduce, include_self),
            [(S, T((4, 4)))],
            covers=(f"index_reduce_{reduce}",),
        )
        for reduce in ("prod", "mean", "amax", "amin")
        for include_self in (True, False)
    ],
    *[
        OpSpec(
            f"scatter_reduce_{reduce}" + ("" if include_self else "_exclude_self"),
            _scatter_reduce(reduce, include_self),
            [
                (S, S)
            ],  # (torch's backward fails for a src larger than index: see test_scatter_reduce)
            covers=(f"scatter_reduce_{reduce}",)
            + (("scatter_reduce_double_backward_error",) if reduce == "prod" else ()),
        )
        for reduce in ("sum", "prod", "mean", "amax", "amin")
        for include_self in (True, False)
    ],
    OpSpec(
        "scatter_reduce_inplace",
        lambda t, x, s: (x * 1).scatter_reduce_(0, t.tensor([[2, 0, 0, 1]]), s, "mean"),
        [(S, T((1, 4)))],
        covers=("scatter_reduce_mean",),
    ),
    OpSpec("nanmedian", lambda t, x: t.nanmedian(x), [(S,), (T((5,)),)]),
    OpSpec(
        "nanmedian_of_nans",
        lambda t, x: _with_nans(t, x).nanmedian(),
        [(S,)],
        covers=("nanmedian",),
    ),
    OpSpec("nanmedian_dim", lambda t, x: x.nanmedian(1).values, [(S,), (T((2, 1)),)]),
    OpSpec(
        "nanmedian_dim_nans",
        lambda t, x: t.nanmedian(_with_nans(t, x), 1, keepdim=True)[0],
        [(S,)],
        covers=("nanmedian_dim",),
    ),
    OpSpec(
        "as_strided",
        lambda t, x: x.as_strided((2, 3), (1, 2), 1),
        [(S,)],
        covers=("strided_remap",),
    ),
    OpSpec(
        "as_strided_overlapping",
        lambda t, x: t.as_strided(x, (3, 3), (1, 1)),  # elements read more than once
        [(S,)],
        covers=("as_strided", "strided_remap"),
    ),
    OpSpec(
        "as_strided_of_expanded",
        lambda t, x: x.expand(2, 4).as_strided((2, 2), (1, 2)),  # the input shares memory too
        [(T((4,)),)],
        covers=("as_strided", "strided_remap"),
    ),
    OpSpec(
        "as_strided_of_view",
        lambda t, x: x[1:].as_strided((2, 2), (4, 1)),  # offset: the view's own
        [(S,)],
        covers=("as_strided", "strided_remap"),
    ),
    OpSpec(
        "as_strided_inplace",
        lambda t, x: (x * 1).as_strided_((2, 2), (2, 1), 1),
        [(S,)],
        covers=("strided_remap",),
    ),
    OpSpec("unsafe_split", lambda t, x: _pieces(t, x.unsafe_split(2, 1)), [(S,), (T((5, 3)),)]),
    OpSpec(
        "unsafe_chunk",
        lambda t, x: _pieces(t, t.unsafe_chunk(x, 2, 0)),
        [(S,)],
        covers=("unsafe_split",),
    ),
    OpSpec(
        "unsafe_split_with_sizes",
        lambda t, x: _pieces(t, x.unsafe_split_with_sizes([1, 3, 0], 1)),
        [(S,)],
    ),
]
