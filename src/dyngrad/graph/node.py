"""Graph nodes: the base `Node`, `AccumulateGrad` for leaves, `GraphRoot`; node numbering.

# Note [Graph ownership]
# An output tensor points to its node (`grad_fn`); a node points to the nodes of its inputs
# (`next_functions`) and to what it saved; nothing points back from a node to its outputs.
# A graph is therefore freed by reference counting as soon as its last tensor goes. A node
# that must save its own output keeps only the array and the version counter (see
# `SavedOutput`), and rebuilds a tensor whose grad_fn is the node when a formula asks.
"""

from __future__ import annotations

import itertools
import re
import weakref

from .._handles import RemovableHandle
from .._tensor import above

__all__ = [
    "Node",
    "AccumulateGrad",
    "GraphRoot",
    "SECOND_BACKWARD",
    "grad_accumulator",
    "move_retains_grad",
    "op_name_of",
    "REQUIRING_GRAD",
]

# `Node._edges` of a node that links only the inputs that require grad (PyTorch's NotImplemented)
REQUIRING_GRAD = "requiring grad"
_sequence = itertools.count()
above.next_node_seq = _sequence.__next__  # Tensor.detach_: See Note [Calls up the layers]

SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


_CPP_NODES = frozenset(
    {
        "AccumulateGrad",
        "CopySlices",
        "CopyBackwards",
        "GraphRoot",
        "Error",
        "DelayedError",
        "NotImplemented",
    }
)


class Node:
    """A step of the backward graph; matches `torch.autograd.graph.Node`.

    Subclasses implement `apply(grads)`: the gradients of the forward outputs in, one
    gradient per entry of `next_functions` out (None where an input needs none).
    """

    # Only what every node sets is a slot; hooks and traces are rare and fall back to the
    # class defaults until set (they then live in __dict__).
    __slots__ = ("next_functions", "_seq", "__dict__", "__weakref__")
    _n_outputs = 1
    # Whether the node is skipped when no gradient reached it (formulas can't take None);
    # a custom Function runs anyway, on zeros, as PyTorch's does.
    _needs_grads = True
    # False once any hook is registered (or for nodes the engine runs its own way): the
    # engine then takes its slower path through hooks; one flag, one check per node.
    _plain = True
    # a table op's inputs that have edges, when not all do (See Note [Edges are differentiable
    # inputs] in ops/table/registry.py); None: edge i is input i; REQUIRING_GRAD: chosen per call
    _edges = None
    _hooks = None
    _pre_hooks = None
    _tensor_hooks = None
    _retains = None
    _trace = None  # anomaly mode: the forward stack that made the node
    _induced_by = ()  # anomaly mode: (name, stack) of the backward nodes that made this one

    def __init__(self, next_functions=()):
        self.next_functions = next_functions
        self._seq = next(_sequence)

    @property
    def metadata(self) -> dict:
        """Matches `Node.metadata`: a dict for the user's annotations."""
        if "_metadata" not in self.__dict__:
            self._metadata = {}
        return self._metadata

    def name(self) -> str:
        name = type(self).__name__
        # nodes that PyTorch writes in C++ outside its generated table carry their namespace
        return "torch::autograd::" + name if name in _CPP_NODES else name

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {id(self):#x}>"

    def __call__(self, *grads):
        """Run the node by hand, as PyTorch allows: `y.grad_fn(torch.ones(2))`."""
        if len(grads) != self._n_outputs:  # one gradient per output the node made
            raise TypeError(f"expected {self._n_outputs} arguments, got {len(grads)} instead")
        result = self.apply(grads)
        return result[0] if len(result) == 1 else result  # one input: the tensor itself

    def apply(self, grads: tuple) -> tuple:
        raise NotImplementedError

    def release(self) -> None:
        """Drop saved buffers after a backward without retain_graph."""

    # hooks -------------------------------------------------------------------------------
    def register_hook(self, fn) -> RemovableHandle:
        """Matches `Node.register_hook`: `fn(grad_inputs, grad_outputs)` after the node runs."""
        if self._hooks is None:
            self._hooks = {}
        self._plain = False
        handle = RemovableHandle(self._hooks)
        self._hooks[handle.id] = fn
        return handle

    def register_prehook(self, fn) -> RemovableHandle:
        """Matches `Node.register_prehook`: `fn(grad_outputs)` before the node runs."""
        if self._pre_hooks is None:
            self._pre_hooks = {}
        self._plain = False
        handle = RemovableHandle(self._pre_hooks)
        self._pre_hooks[handle.id] = fn
        return handle

    def _register_tensor_hook(self, output_nr: int, fn) -> RemovableHandle:
        if self._tensor_hooks is None:
            self._tensor_hooks = {}
        self._plain = False
        store = self._tensor_hooks.setdefault(output_nr, {})
        handle = RemovableHandle(store)
        store[handle.id] = fn
        return handle

    def _retain_grad_of(self, tensor, output_nr: int) -> None:
        # weak: the node must not keep its own output alive (see Note [Graph ownership])
        if self._retains is None:
            self._retains = {}
        self._plain = False
        self._retains[output_nr] = weakref.ref(tensor)

    @property
    def _saved_tensor_names(self) -> tuple:
        return ()

    def _output_differentiable(self, output_nr: int) -> bool:
        """Whether a saved output of this node, read back, has the node as its history."""
        return True


class AccumulateGrad(Node):
    """The sink of a leaf that requires grad: adds incoming gradients into `variable.grad`."""

    # The leaf holds its AccumulateGrad strongly and the node holds the leaf weakly: no cycle,
    # and the node lives as long as the leaf, so building a graph never re-creates it.
    __slots__ = ("_variable",)
    _plain = False  # the engine accumulates into the leaf itself

    def __init__(self, variable):
        super().__init__(())
        self._variable = weakref.ref(variable)
        self._seq = float("inf")  # run as soon as ready, as PyTorch does

    @property
    def variable(self):
        """The leaf tensor (None once it has been freed: its gradient then goes nowhere)."""
        return self._variable()

    def apply(self, grads):
        raise RuntimeError("AccumulateGrad is run by the engine")


class GraphRoot(Node):
    """The node a backward from several tensors starts at: it hands each root its gradient."""

    __slots__ = ("_grads",)
    _needs_grads = False

    def __init__(self, edges, grads):
        super().__init__(edges)
        self._grads = grads

    def apply(self, grads):
        return self._grads


def grad_accumulator(tensor) -> AccumulateGrad:
    """The one AccumulateGrad node of a leaf, shared by every graph that uses the leaf."""
    node = tensor._accum
    if node is None:
        node = tensor._accum = AccumulateGrad(tensor)
    return node


def move_retains_grad(tensor, old_fn, old_nr: int) -> None:
    """`tensor`'s history changed from (old_fn, old_nr) (an in-place op, a rebuilt view): its
    `retain_grad()` moves to the new node, as PyTorch's; hooks stay with the old node."""
    if not tensor._retains or old_fn is None or not old_fn._retains:
        return
    ref = old_fn._retains.get(old_nr)
    if ref is not None and ref() is tensor:
        del old_fn._retains[old_nr]
        tensor._grad_fn._retain_grad_of(tensor, tensor._out_nr)


def op_name_of(node: Node) -> str:
    """PyTorch's short op name in messages: `SigmoidBackward0` -> `Sigmoid`."""
    return re.sub(r"Backward\d*$", "", node.name())
