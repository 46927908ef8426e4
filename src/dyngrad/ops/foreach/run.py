"""Running a foreach call: each element through its per-element op, then one node over all
(See Note [Foreach nodes]); in-place calls element by element, as PyTorch's."""

from __future__ import annotations

from ...graph.grad_mode import no_grad
from ...graph.grad_mode import state as grad_state
from ...graph.node import _sequence
from ..table.views import check_inplace_allowed
from .node import node_class, record_foreach

__all__ = ["run", "run_inplace", "method"]

next_node_seq = _sequence.__next__


def run(node: str, fn, columns: tuple, refused: str | None = None) -> tuple:
    """`fn(*element_args)` for every element of `columns` (the first is the tensor list `self`),
    recorded as one node named `node` when an input requires grad. `refused`: PyTorch has no
    derivative for this overload; backward raises its error naming `refused`."""
    n = len(next(c.values for c in columns if c.per_element))
    start = next_node_seq()  # every node the elements record is numbered from here
    if refused is not None:
        with no_grad():
            outputs = [fn(*[c.at(i) for c in columns]) for i in range(n)]
    else:
        outputs = [fn(*[c.at(i) for c in columns]) for i in range(n)]
    if grad_state.enabled:
        inputs, owners = _inputs(columns, n)
        if any(t._requires_grad for t in inputs):
            record_foreach(node_class(node, refused), tuple(inputs), outputs, owners, start)
    return tuple(outputs)


def run_inplace(fn, columns: tuple) -> list:
    """`fn(*element_args)` (an in-place op on element i of `self`) for every element; returns
    `self`, the list itself, as PyTorch does."""
    self = columns[0].values
    if grad_state.enabled:  # a leaf among them is refused before any tensor is written
        for t in self:
            if t._requires_grad or t._base is not None and t._base._requires_grad:
                check_inplace_allowed(t)
    for i in range(len(self)):
        fn(*[c.at(i) for c in columns])
    return self


def _inputs(columns: tuple, n: int):
    # the call's tensors in PyTorch's order (list by list; a single Tensor once), and for each
    # element the positions of its own among them
    inputs: list = []
    owners: list = [[] for _ in range(n)]
    for column in columns:
        if not column.tensors:
            continue
        if column.per_element:
            for i, t in enumerate(column.values):
                owners[i].append(len(inputs))
                inputs.append(t)
        else:
            for own in owners:
                own.append(len(inputs))
            inputs.append(column.values)
    return inputs, owners


def method(name: str):
    """A call of the Tensor method `name` on its first argument, looked up when called: the
    methods are attached once every op family has loaded (ops/__init__.py)."""

    def call(x, *args, **kwargs):
        return getattr(x, name)(*args, **kwargs)

    call.__name__ = name
    return call
