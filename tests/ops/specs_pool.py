"""Specs for 3-d pooling, adaptive pooling's backward rows, max unpooling and grid sampling.

Each backward row (max_pool3d_with_indices_backward, ..._gather) is exercised by the
gradgradcheck of the op whose formula uses it, hence the `covers`.
"""

from __future__ import annotations

from .spec import OpSpec, T


def _f(t):
    return t.nn.functional


def _indices(t, rows):
    # distinct positions in a 4x4 (or 4x4x4) output, one per 2-wide window
    return t.tensor(rows, dtype=t.int64)


SPECS: list[OpSpec] = [
    OpSpec(
        "max_pool3d_with_indices",
        lambda t, x: _f(t).max_pool3d(x, 2, stride=1, padding=1, ceil_mode=True),
        [(T((1, 2, 3, 2, 3)),), (T((2, 3, 3, 2), nc=True),)],
        covers=("max_pool3d_with_indices_backward", "max_pool3d_with_indices_gather"),
    ),
    OpSpec(
        "max_pool3d_dilated",
        lambda t, x: _f(t).max_pool3d(x, (2, 1, 2), (1, 2, 1), (1, 0, 0), (2, 1, 1)),
        [(T((1, 1, 4, 3, 3)),)],
        covers=("max_pool3d_with_indices",),
    ),
    OpSpec(
        "avg_pool3d",
        lambda t, x: _f(t).avg_pool3d(x, 3, 2, 1, count_include_pad=False, ceil_mode=True),
        [(T((1, 2, 4, 3, 3)),), (T((2, 3, 3, 4), nc=True),)],
        covers=("avg_pool3d_backward",),
    ),
    OpSpec(
        "avg_pool3d_divisor",
        lambda t, x: _f(t).avg_pool3d(x, (2, 1, 2), divisor_override=3),
        [(T((1, 2, 4, 3, 4)),)],
        covers=("avg_pool3d",),
    ),
    OpSpec(
        "adaptive_avg_pool3d",
        lambda t, x: _f(t).adaptive_avg_pool3d(x, (2, 3, 2)),
        [(T((1, 2, 3, 4, 5)),), (T((2, 5, 3, 3), nc=True),)],
        covers=("adaptive_avg_pool3d_backward",),
    ),
    OpSpec(
        "adaptive_max_pool3d",
        lambda t, x: _f(t).adaptive_max_pool3d(x, (2, 3, 2)),
        [(T((1, 2, 3, 4, 5)),), (T((2, 5, 3, 3), nc=True),)],
        covers=("adaptive_max_pool3d_backward", "adaptive_max_pool3d_gather"),
    ),
    OpSpec(
        "adaptive_max_pool2d_double",
        lambda t, x: _f(t).adaptive_max_pool2d(x, (3, 2)),
        [(T((2, 5, 4)),)],
        covers=("adaptive_max_pool2d_backward", "adaptive_max_pool2d_gather"),
    ),
    OpSpec(
        "max_unpool2d",
        lambda t, x: _f(t).max_unpool2d(x, _indices(t, [[[[1, 6], [8, 15]]] * 2]), 2),
        [(T((1, 2, 2, 2)),)],
    ),
    OpSpec(
        "max_unpool3d",
        lambda t, x: _f(t).max_unpool3d(x, _indices(t, [[[[[0, 3]], [[20, 31]]]]]), 2),
        [(T((1, 1, 2, 1, 2)),)],
    ),
    OpSpec(
        "grid_sampler_2d",
        lambda t, x, g: _f(t).grid_sample(x, g, align_corners=False),
        [(T((2, 2, 3, 4)), T((2, 3, 2, 2), -1.2, 1.2))],
    ),
    OpSpec(
        "grid_sampler_2d_reflection",
        lambda t, x, g: _f(t).grid_sample(x, g, padding_mode="reflection", align_corners=True),
        [(T((1, 2, 3, 4)), T((1, 2, 3, 2), -1.6, 1.6))],
        covers=("grid_sampler_2d",),
    ),
    OpSpec(
        "grid_sampler_2d_nearest",
        lambda t, x, g: _f(t).grid_sample(x, g, "nearest", "border", align_corners=False),
        [(T((1, 2, 3, 4)), T((1, 2, 3, 2), -1.2, 1.2, grad=False))],
        covers=("grid_sampler_2d",),
    ),
    OpSpec(
        "grid_sampler_2d_bicubic",
        lambda t, x, g: _f(t).grid_sample(x, g, "bicubic", "reflection", align_corners=False),
        [(T((1, 2, 3, 4)), T((1, 2, 3, 2), -1.6, 1.6))],
        covers=("grid_sampler_2d",),
    ),
    OpSpec(
        "grid_sampler_3d",
        lambda t, x, g: _f(t).grid_sample(x, g, padding_mode="border", align_corners=False),
        [(T((1, 2, 2, 3, 2)), T((1, 2, 1, 2, 3), -1.2, 1.2))],
    ),
    OpSpec(
        "affine_grid_generator",
        lambda t, theta: _f(t).affine_grid(theta, (2, 3, 4, 5), align_corners=False),
        [(T((2, 2, 3)),)],
    ),
    OpSpec(
        "affine_grid_generator_3d",
        lambda t, theta: _f(t).affine_grid(theta, (1, 1, 2, 3, 2), align_corners=True),
        [(T((1, 3, 4)),)],
        covers=("affine_grid_generator",),
    ),
]
