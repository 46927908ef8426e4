"""The fast callables of the ops users call most, generated from their op-table rows."""

from __future__ import annotations

from .fast_codegen import fast_form, source_of

__all__ = ["binary", "unary", "source_of"]

# Note [Hot path]
# `x + y` on small tensors is dominated by Python, not by NumPy, so the ops users call most
# get a fast callable. It does what `apply` does for the common case (tensors of one float
# dtype on the CPU, or a tensor and a Python number) without loops, keywords or promotion,
# and hands every other case to `apply`. What it records is what `record` records (See Note
# [One recording path]); it is generated from one template, with `new_tensor` and `record`
# inlined, so that it makes no Python call besides the forward (See Note [Generated fast
# forms] in fast_codegen.py; `source_of("mul")` shows one). Each is named after its op
# (`mul`), so profilers and tracebacks show the op, not a closure.


def binary(op):
    """The fast form of an elementwise two-input row: `binary(MUL)(x, y) == apply(MUL, (x, y))`.

    `x` is a Tensor; `y` a Tensor or a Python number.
    """
    return fast_form(op, "binary")


def unary(op):
    """The fast form of a one-input row without attributes: `unary(EXP)(x)`."""
    return fast_form(op, "unary")
