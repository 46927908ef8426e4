"""Where in the user's code: frames outside dyngrad, and lines found in the user's source."""

from __future__ import annotations

import linecache
import os
import re
import sys

__all__ = [
    "user_frame",
    "user_site",
    "frame_site",
    "called_from_user",
    "definition_site",
    "statement_site",
]

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _inside(frame) -> bool:
    return frame.f_code.co_filename.startswith(_PACKAGE_DIR)


def user_frame(depth: int = 1):
    """The nearest frame outside dyngrad, from `depth` frames above the caller."""
    frame = sys._getframe(depth + 1)
    while frame is not None and _inside(frame):
        frame = frame.f_back
    return frame


def frame_site(frame) -> tuple[str, int] | None:
    return None if frame is None else (frame.f_code.co_filename, frame.f_lineno)


def user_site(depth: int = 1) -> tuple[str, int] | None:
    """(file, line) of the nearest caller outside dyngrad."""
    return frame_site(user_frame(depth + 1))


def called_from_user(depth: int = 1) -> bool:
    """Whether the function calling this one was called by user code, not by dyngrad."""
    return not _inside(sys._getframe(depth + 1))


# ---- lines found in source ------------------------------------------------------------------


def _code_lines(code) -> tuple[str, list[int]]:
    numbers = sorted({line for _, _, line in code.co_lines() if line is not None})
    for const in code.co_consts:  # nested functions and comprehensions
        if hasattr(const, "co_lines"):
            numbers += _code_lines(const)[1]
    return code.co_filename, sorted(set(numbers))


def _search(code, pattern: re.Pattern) -> tuple[str, int] | None:
    filename, numbers = _code_lines(code)
    if not numbers:
        return None
    for number in range(numbers[0], numbers[-1] + 1):
        if pattern.search(linecache.getline(filename, number)):
            return filename, number
    return None


def definition_site(owners: list) -> tuple[str, int] | None:
    """The line of a user class that assigns an attribute: `owners` lists (module, name)
    pairs from the parameter outward (`(linear, "weight")`, `(model, "fc2")`, ...)."""
    for module, name in owners:
        for klass in type(module).__mro__:
            if klass.__module__.startswith("dyngrad") or klass is object:
                continue
            pattern = re.compile(
                rf"self\.{re.escape(name)}\s*(:[^=]*)?=(?!=)|['\"]{re.escape(name)}['\"]"
            )
            for value in vars(klass).values():
                code = getattr(value, "__code__", None)
                found = code is not None and _search(code, pattern)
                if found:
                    return found
    return None


def statement_site(name: str, frames: list) -> tuple[str, int] | None:
    """The line in `frames`' code that adds to the container `name` (append, +=, ...)."""
    attr = re.escape(name)
    pattern = re.compile(
        rf"(^|[^\w.]|\.){attr}\s*(\.\s*(append|extend|insert)\s*\(|\+=|\[[^\]]*\]\s*=(?!=))"
    )
    for frame in frames:
        found = _search(frame.f_code, pattern)
        if found:
            return found
    return None
