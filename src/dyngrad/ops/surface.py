"""The public surface generated from the op table: `dyngrad.*` functions and Tensor methods."""

from __future__ import annotations

__all__ = ["FUNCTIONS", "METHODS", "public", "install"]

FUNCTIONS: dict = {}
METHODS: dict = {}


def public(fn=None, *, name: str | None = None, method: bool | str = True,
           function: bool = True):
    """Publish `fn` as `dyngrad.<name>` and (unless method=False) as `Tensor.<name>`.

    `method` may be a different name for the method (`__add__`).
    """

    def register(f):
        key = name or f.__name__
        if function:
            FUNCTIONS[key] = f
        if method:
            METHODS[key if method is True else method] = f
        return f

    return register(fn) if fn is not None else register


def install(cls) -> None:
    for key, fn in METHODS.items():
        setattr(cls, key, fn)
