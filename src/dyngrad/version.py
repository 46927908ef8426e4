"""Versions: dyngrad's own, and `torch.version`'s fields as a PyTorch script reads them."""

from __future__ import annotations

import re

__all__ = ["TorchVersion", "dyngrad", "__version__", "cuda", "hip", "debug", "git_version"]

# dyngrad's release (pyproject.toml reads it from here)
dyngrad = "0.1.0"
# the PyTorch release whose behaviour dyngrad matches
PYTORCH = "2.13.0"


class TorchVersion(str):
    """A version string that compares by release numbers, as `torch.torch_version.
    TorchVersion` does: against strings (`"2.1"`), tuples (`(2, 1)`) or other versions, so
    that `"2.13.0" > "2.2"` holds where plain string comparison says otherwise."""

    def _release(self) -> tuple:
        return _release_of(str(self))

    def _cmp(self, other, op) -> bool:
        try:
            theirs = _release_of(other)
        except (TypeError, ValueError):
            return NotImplemented
        ours, theirs = _padded(self._release(), theirs)
        return op(ours, theirs)

    def __lt__(self, other):
        return self._cmp(other, tuple.__lt__)

    def __le__(self, other):
        return self._cmp(other, tuple.__le__)

    def __gt__(self, other):
        return self._cmp(other, tuple.__gt__)

    def __ge__(self, other):
        return self._cmp(other, tuple.__ge__)

    def __eq__(self, other):
        if isinstance(other, str) and not isinstance(other, TorchVersion):
            return str.__eq__(self, other) or self._cmp(other, tuple.__eq__) is True
        return self._cmp(other, tuple.__eq__)

    __hash__ = str.__hash__


def _release_of(version) -> tuple:
    # "2.13.0+dyngrad.0.1.0" -> (2, 13, 0); a tuple is taken as it is; `packaging`'s Version
    # carries `.release`
    if isinstance(version, tuple):
        return tuple(int(part) for part in version)
    release = getattr(version, "release", None)
    if release is not None:
        return tuple(release)
    if not isinstance(version, str):
        raise TypeError(f"cannot compare a version with {type(version).__name__}")
    match = re.match(r"\s*v?(\d+(?:\.\d+)*)", version)
    if match is None:
        raise ValueError(f"not a version: {version!r}")
    return tuple(int(part) for part in match.group(1).split("."))


def _padded(a: tuple, b: tuple) -> tuple:
    width = max(len(a), len(b))
    return a + (0,) * (width - len(a)), b + (0,) * (width - len(b))


# What `torch.__version__` reads where `import torch` means dyngrad (`dyngrad run`,
# `dyngrad.install_as_torch()`): PyTorch's release, so that version checks against 2.x pass,
# with dyngrad named in the local part (PEP 440: `packaging.version.Version` parses it).
__version__ = TorchVersion(f"{PYTORCH}+dyngrad.{dyngrad}")
cuda = None
hip = None
xpu = None
debug = False
git_version = "unknown"
