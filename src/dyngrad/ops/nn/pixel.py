"""pixel_shuffle and pixel_unshuffle: channels to space and back, each the other's backward."""

from __future__ import annotations

from ..table.record import apply
from ..table.registry import defop


def _shuffle(xp, x, *, r):
    *lead, c, h, w = x.shape
    y = x.reshape(*lead, c // (r * r), r, r, h, w)
    n = len(lead)
    y = y.transpose(*range(n), n, n + 3, n + 1, n + 4, n + 2)  # (..., C, H, r, W, r)
    return xp.ascontiguousarray(y).reshape(*lead, c // (r * r), h * r, w * r)


def _unshuffle(xp, x, *, r):
    *lead, c, h, w = x.shape
    y = x.reshape(*lead, c, h // r, r, w // r, r)
    n = len(lead)
    y = y.transpose(*range(n), n, n + 2, n + 4, n + 1, n + 3)  # (..., C, r, r, H/r, W/r)
    return xp.ascontiguousarray(y).reshape(*lead, c * r * r, h // r, w // r)


PIXEL_SHUFFLE = defop(
    "pixel_shuffle", _shuffle, {"x": lambda g, r: apply(PIXEL_UNSHUFFLE, (g,), {"r": r})}
)
PIXEL_UNSHUFFLE = defop(
    "pixel_unshuffle", _unshuffle, {"x": lambda g, r: apply(PIXEL_SHUFFLE, (g,), {"r": r})}
)


def _check(name, input, factor, kind):
    if input._data.ndim < 3:
        raise RuntimeError(
            f"{name} expects input to have at least 3 dimensions, but got input "
            f"with {input._data.ndim} dimension(s)"
        )
    if factor <= 0:
        raise RuntimeError(f"{name} expects a positive {kind}, but got {factor}")


def pixel_shuffle(input, upscale_factor):
    """Matches `torch.nn.functional.pixel_shuffle`: (*, C r², H, W) -> (*, C, H r, W r)."""
    r = int(upscale_factor)
    _check("pixel_shuffle", input, r, "upscale_factor")
    c = input._data.shape[-3]
    if c % (r * r):
        raise RuntimeError(
            f"pixel_shuffle expects its input's 'channel' dimension to be "
            f"divisible by the square of upscale_factor, but input.size(-3)={c} "
            f"is not divisible by {r * r}"
        )
    return apply(PIXEL_SHUFFLE, (input,), {"r": r})


def pixel_unshuffle(input, downscale_factor):
    """Matches `torch.nn.functional.pixel_unshuffle`: (*, C, H r, W r) -> (*, C r², H, W)."""
    r = int(downscale_factor)
    _check("pixel_unshuffle", input, r, "downscale_factor")
    h, w = input._data.shape[-2:]
    for name, size, dim in (("height", h, -2), ("width", w, -1)):
        if size % r:
            raise RuntimeError(
                f"pixel_unshuffle expects {name} to be divisible by "
                f"downscale_factor, but input.size({dim})={size} is not "
                f"divisible by {r}"
            )
    return apply(PIXEL_UNSHUFFLE, (input,), {"r": r})
