"""What nodes save: a node's own output (`SavedOutput`) and the names PyTorch shows for saved
values."""

from __future__ import annotations

from .._tensor import Tensor

__all__ = ["SavedOutput", "SAVES_OUTPUT", "TORCH_SAVED_NAMES"]

# The save plan (name, input index; -1 the output) of ops whose formulas read only their output
# (relu, exp, tanh...): one shared object, so recording tests it with `is`.
SAVES_OUTPUT = (("out", -1),)

# dyngrad's formula names -> PyTorch's `_saved_<name>` attributes
TORCH_SAVED_NAMES = {"x": "self", "y": "other", "out": "result"}


class SavedOutput:
    """An op's own output, saved without a reference back to the op's node.

    It keeps the output's array and version counter; the tensor standing for it (no history)
    is made only if something asks for it, which most graphs never do before backward.
    """

    __slots__ = ("data", "version_counter", "output_nr", "_tensor")

    def __init__(self, data, version_counter, output_nr: int):
        self.data = data
        self.version_counter = version_counter
        self.output_nr = output_nr
        self._tensor = None

    @property
    def tensor(self):
        if self._tensor is None:
            self._tensor = t = Tensor._wrap(self.data)
            t._version_counter = self.version_counter
        return self._tensor
