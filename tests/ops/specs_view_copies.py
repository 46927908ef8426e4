"""Specs for the view copies (`torch.permute_copy`, `split_copy`, ..., `narrow_copy`) and
`as_strided_scatter`: torch's values, gradients and `<View>Backward0_copy` node names."""

from __future__ import annotations

from .spec import OpSpec, T
from .specs_shape import _pieces

S = T((3, 4))
NC = T((3, 4), nc=True)
B = T((2, 3, 4))
ONES = T((3, 1, 4))

SPECS = [
    OpSpec("alias_copy", lambda t, x: t.alias_copy(x), [(S,), (NC,)]),
    OpSpec(
        "as_strided_copy",
        lambda t, x: t.as_strided_copy(x, (2, 2), (1, 2), 1),
        [(S,)],
    ),
    OpSpec("diagonal_copy", lambda t, x: t.diagonal_copy(x, 1, 0, 2), [(B,)]),
    OpSpec("expand_copy", lambda t, x: t.expand_copy(x, (2, 3, 4)), [(T((3, 1)),), (S,)]),
    OpSpec("permute_copy", lambda t, x: t.permute_copy(x, (2, 0, 1)), [(B,)]),
    OpSpec("select_copy", lambda t, x: t.select_copy(x, 1, -1), [(B,), (NC,)]),
    OpSpec("slice_copy", lambda t, x: t.slice_copy(x, 1, 0, 3, 2), [(S,), (NC,)]),
    OpSpec("split_copy", lambda t, x: _pieces(t, t.split_copy(x, 2, 1)), [(S,)]),
    OpSpec(
        "split_with_sizes_copy",
        lambda t, x: _pieces(t, t.split_with_sizes_copy(x, [1, 2])),
        [(S,)],
    ),
    OpSpec("squeeze_copy", lambda t, x: t.squeeze_copy(x), [(ONES,)]),
    OpSpec("squeeze_dim_copy", lambda t, x: t.squeeze_copy(x, 1), [(ONES,)]),
    OpSpec("squeeze_dims_copy", lambda t, x: t.squeeze_copy(x, (0, 1)), [(ONES,)]),
    OpSpec("t_copy", lambda t, x: t.t_copy(x), [(S,), (NC,)]),
    OpSpec("transpose_copy", lambda t, x: t.transpose_copy(x, 0, 2), [(B,)]),
    OpSpec("unbind_copy", lambda t, x: _pieces(t, t.unbind_copy(x, 1)), [(S,)]),
    OpSpec("unfold_copy", lambda t, x: t.unfold_copy(x, 1, 2, 1), [(S,), (NC,)]),
    OpSpec("unsqueeze_copy", lambda t, x: t.unsqueeze_copy(x, -1), [(S,)]),
    OpSpec("view_copy", lambda t, x: t.view_copy(x, (4, 3)), [(S,)]),
    OpSpec(
        "view_as_real_copy",
        lambda t, p: t.view_as_real_copy(t.view_as_complex(p) * 2),
        [(T((3, 2)),)],
        covers=("view_as_complex",),
    ),
    OpSpec("narrow_copy", lambda t, x: t.narrow_copy(x, 1, 1, 2), [(S,), (NC,)]),
    OpSpec(
        "narrow_copy_method", lambda t, x: x.narrow_copy(0, 1, 2), [(S,)], covers=("narrow_copy",)
    ),
    OpSpec(  # PyTorch records a node that refuses backward: only the recording is compared
        "detach_copy", lambda t, x: t.detach_copy(x), [(S,)], grad=False
    ),
]
SPECS.append(
    # only src requires grad here: torch 2.13's gradient for the input is wrong (its own
    # gradcheck fails); tests/ops/test_view_copies.py checks dyngrad's with gradcheck
    OpSpec(
        "as_strided_scatter",
        lambda t, x, s: t.as_strided_scatter(x, s, (2, 2), (1, 2), 1),
        [(T((3, 4), grad=False), T((2, 2)))],
    )
)
