"""Saved-tensor hooks: the per-thread stack of (pack, unpack) pairs, values a node saved through
them (`Packed`), and `SavedTensor`, PyTorch's handle on one saved value of a node.

# Note [Saved tensor hooks]
# Under `torch.autograd.graph.saved_tensors_hooks(pack, unpack)` every tensor a node saves
# (table ops through `record`, in-place ops, custom Functions' `save_for_backward`) is handed
# to `pack`, under no_grad, and the node keeps what pack returned (a `Packed`) instead of the
# tensor; `unpack` turns it back into a tensor whenever backward, or `grad_fn._saved_<name>`,
# reads it. The unpacked tensor is a new tensor on the unpacked data with the saved tensor's
# history (its grad_fn and output number; a node's own output gets the node; a leaf gets its
# AccumulateGrad), so double backward still reaches the same graph. As in PyTorch a packed
# value is not version-checked: what the hooks keep is theirs to keep right. Python numbers
# a formula reads are not tensors to PyTorch (its wrapped numbers) and are never packed.
# Hooks are per thread, like grad mode. `active` is one list for the whole process,
# non-empty while any thread has hooks pushed: recording reads it (one global) and only then
# looks at its own thread's stack, so with no hooks the hot path pays one check.
# A packed object may say which tensors it keeps alive with a `held_tensors()` method (a
# checkpoint's holders do: the region's inputs); `saved_bytes` counts those (Note [Saved
# bytes]). A backward restores the thread's stack when it ends, as PyTorch's engine restores
# its thread-local state, so a hook that enters or exits a context mid-backward leaks nothing.

# Note [Writes into saved tensors]
# `allow_mutation_on_saved_tensors` must copy a saved tensor before an in-place op writes into
# it. Every write into an existing tensor's memory (in-place ops, `out=`) calls each function
# in `write_watchers` with the tensor about to be written, before writing; the list is empty
# (one global read) unless that context is active.
"""

from __future__ import annotations

import threading
import weakref

from .._tensor import Tensor
from .errors import modified_inplace_error
from .grad_mode import state as grad_state
from .node import SECOND_BACKWARD, AccumulateGrad, grad_accumulator
from .saved import SavedOutput

__all__ = [
    "state",
    "active",
    "write_watchers",
    "push",
    "pop",
    "current",
    "Packed",
    "pack",
    "saving_node",
    "Standalone",
    "save_standalone",
    "unpack_standalone",
    "SavedTensor",
    "raw_saved",
]


class _State(threading.local):
    def __init__(self):
        self.stack = []  # (pack_hook, unpack_hook) pairs, innermost last
        self.disabled = None  # the error message while disable_saved_tensors_hooks is active
        self.saving = None  # the node whose saved tensor a pack hook is given, while it runs


state = _State()
_NONE: list = []  # an empty stack's snapshot, never written
active: list = []  # one entry per pair pushed, on any thread: See Note [Saved tensor hooks]
write_watchers: list = []  # See Note [Writes into saved tensors]

PACK_INPLACE = (
    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to "
    "pack hook can not be modified by in-place operations as this can lead to unexpected "
    "side-effects. Please open an issue if you need to perform in-place operations on the "
    "input to a pack hook."
)
FREED = (
    "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate "
    "values of the graph are freed when you call .backward() or autograd.grad(). Specify "
    "retain_graph=True if you need to backward through the graph a second time or if you need "
    "to access saved values after calling backward."
)


def _signature_error(where: str, owner: str, args: tuple) -> TypeError:
    # PyTorch's pybind11 binding rejects anything but two callables with this text
    invoked = ", ".join(repr(a) for a in args)
    return TypeError(
        f"{where}(): incompatible function arguments. The following argument types are "
        f"supported:\n    1. ({owner}arg0: collections.abc.Callable, arg1: "
        f"collections.abc.Callable) -> None\n\nInvoked with: {invoked}"
    )


def push(pack_hook, unpack_hook) -> None:
    """Push a (pack, unpack) pair on this thread's stack (`saved_tensors_hooks.__enter__`)."""
    if state.disabled is not None:
        raise RuntimeError(state.disabled)
    if not (callable(pack_hook) and callable(unpack_hook)):
        raise _signature_error("_push_saved_tensors_default_hooks", "", (pack_hook, unpack_hook))
    state.stack.append((pack_hook, unpack_hook))
    active.append(None)


def pop() -> None:
    """Pop this thread's innermost pair; a pop with none pushed does nothing."""
    if state.stack:
        state.stack.pop()
        active.pop()


def current():
    """This thread's innermost (pack, unpack) pair, or None."""
    stack = state.stack
    return stack[-1] if stack else None


def snapshot() -> list:
    """This thread's stack, to `restore` when a backward pass ends."""
    stack = state.stack
    return list(stack) if stack else _NONE


def restore(pairs: list) -> None:
    stack = state.stack
    if not stack and not pairs:  # (every backward pass without hooks: nothing to undo)
        return
    for _ in range(len(stack) - len(pairs)):
        active.pop()
    for _ in range(len(pairs) - len(stack)):
        active.append(None)
    stack[:] = pairs


class Packed:
    """A saved tensor held as what a pack hook returned (See Note [Saved tensor hooks])."""

    __slots__ = ("packed", "unpack_hook", "grad_fn", "output_nr", "is_output", "shape")

    def unpack(self, node=None) -> Tensor:
        """The tensor `unpack_hook` gives back, with the saved tensor's history; `node` is the
        node that saved it (the history of a saved output)."""
        value = self.unpack_hook(self.packed)
        if not isinstance(value, Tensor):
            raise TypeError(
                "Output of saved tensor unpack_hook expected to be a Tensor but got result of "
                f"type {type(value).__name__}"
            )
        fn = self.grad_fn
        if fn is None and not self.is_output and not value._requires_grad:
            return value  # nothing to attach: PyTorch hands the unpacked tensor out as it is
        if self.is_output:
            differentiable = node is not None and node._output_differentiable(self.output_nr)
            t = Tensor._wrap(value._data, differentiable, node if differentiable else None)
            t._out_nr = self.output_nr
        elif fn is None:
            t = Tensor._wrap(value._data)
        elif type(fn) is AccumulateGrad:  # a leaf's: its gradient goes to the leaf
            t = Tensor._wrap(value._data, True)
            t._accum = fn
        else:
            t = Tensor._wrap(value._data, True, fn, self.output_nr)
        t._version_counter = value._version_counter
        return t

    def held(self) -> list:
        """The tensors the packed object keeps alive (for saved_bytes and describe)."""
        return _tensors_in(self.packed, 0)

    def __repr__(self) -> str:
        return "[packed saved tensor]"


def _tensors_in(obj, depth: int) -> list:
    if isinstance(obj, Tensor):
        return [obj]
    if type(obj) is Packed:
        return obj.held()
    if depth > 4:
        return []
    if isinstance(obj, (tuple, list)):
        return [t for item in obj for t in _tensors_in(item, depth + 1)]
    if isinstance(obj, dict):
        return [t for item in obj.values() for t in _tensors_in(item, depth + 1)]
    held = getattr(obj, "held_tensors", None)
    if callable(held):
        return [t for item in held() for t in _tensors_in(item, depth + 1)]
    return []


def pack(tensor: Tensor, hooks, is_output: bool = False, output_nr: int = 0, node=None) -> Packed:
    """Save `tensor` through `hooks` (a (pack, unpack) pair) for `node`: call pack under
    no_grad and keep what it returns with the tensor's history; PyTorch's error if pack writes
    into it. While pack runs, `saving_node()` says which node saves (checkpoint's debug log)."""
    pack_hook, unpack_hook = hooks
    counter = tensor._version_counter
    version = counter.value
    prev, prev_node = grad_state.enabled, state.saving
    grad_state.enabled = False
    state.saving = node
    try:
        packed = pack_hook(tensor)
    finally:
        grad_state.enabled = prev
        state.saving = prev_node
    if counter.value != version:
        raise RuntimeError(PACK_INPLACE)
    p = Packed()
    p.packed = packed
    p.unpack_hook = unpack_hook
    p.is_output = is_output
    p.output_nr = output_nr
    p.shape = tensor._data.shape
    p.grad_fn = None
    if not is_output and tensor._requires_grad:
        fn = tensor.grad_fn  # (a stale view's history is rebuilt here)
        if fn is None:
            p.grad_fn = grad_accumulator(tensor)
        else:
            p.grad_fn = fn
            p.output_nr = tensor._out_nr
    return p


def saving_node():
    """The node whose saved tensor the running pack hook was given (None outside one)."""
    return state.saving


class Standalone:
    """A tensor saved outside any node, with no hooks active: the tensor and its version."""

    __slots__ = ("tensor", "version")

    def held_tensors(self) -> list:
        return [self.tensor]


def save_standalone(tensor: Tensor):
    """A tensor saved outside any node (PyTorch's `_make_saved_tensor`): packed through this
    thread's hooks if any are active, else kept with its version. `unpack_standalone`."""
    hooks = current() if active else None
    if hooks is not None:
        return pack(tensor, hooks)
    saved = Standalone()
    saved.tensor = tensor
    saved.version = tensor._version_counter.value
    return saved


def unpack_standalone(saved, saver: str) -> Tensor:
    """The tensor `save_standalone` saved; PyTorch's error if it was modified in place since
    (`saver` names who saved it, for the message)."""
    if type(saved) is Packed:
        return saved.unpack()
    t = saved.tensor
    if t._version_counter.value != saved.version:
        raise modified_inplace_error(saver, "input", t, saved.version, t._grad_fn, t._out_nr)
    return t


# ---- SavedTensor: grad_fn._raw_saved_<name> -------------------------------------------------


class SavedTensor:
    """Matches `torch.autograd.SavedTensor`: one saved value of a node, as
    `grad_fn._raw_saved_<name>` hands it out (`register_hooks`, `data`, `unpack_hook`,
    `unpack()`). Nodes give their saved values through `_saved_slot(key)` and take a packed
    one back through `_set_saved_slot(key, packed)`."""

    __slots__ = ("_node", "_key", "__weakref__")

    def __init__(self, *args, **kwargs):
        raise RuntimeError("Trying to create a SavedTensor object from Python is forbidden.")

    def _owner(self):
        node = self._node()
        if node is None:
            raise RuntimeError(FREED)
        return node

    def register_hooks(self, *hooks) -> None:
        """Matches `SavedTensor.register_hooks(pack_hook, unpack_hook)`."""
        if len(hooks) != 2 or not all(callable(h) for h in hooks):
            raise _signature_error(
                "register_hooks", "self: torch._C._autograd.SavedTensor, ", (self,) + hooks
            )
        node = self._owner()
        value = node._saved_slot(self._key, FREED)
        if value is None:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor with value None is forbidden"
            )
        if type(value) is Packed:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor whose hooks have already been set. "
                "Hint: only one pair of hooks is allowed at a time."
            )
        if type(value) is SavedOutput:
            packed = pack(value.tensor, hooks, True, value.output_nr, node)
        else:
            # PyTorch hands pack a detached alias of an input it saved as is
            alias = Tensor._wrap(value._data)
            alias._version_counter = value._version_counter
            packed = pack(alias, hooks, node=node)
            _copy_history(packed, value)
        node._set_saved_slot(self._key, packed)

    @property
    def data(self):
        """What the node keeps: the packed object under hooks, else the saved tensor (a saved
        output without its history)."""
        value = self._owner()._saved_slot(self._key, SECOND_BACKWARD)
        if type(value) is Packed:
            return value.packed
        if type(value) is SavedOutput:
            return value.tensor
        return value

    @property
    def unpack_hook(self):
        value = self._owner()._saved_slot(self._key, SECOND_BACKWARD)
        return value.unpack_hook if type(value) is Packed else None

    def unpack(self):
        """The saved tensor, as backward reads it."""
        return self._owner()._unpack_saved_slot(self._key)


def _copy_history(packed: Packed, tensor: Tensor) -> None:
    # register_hooks packs a detached alias: the history is the saved tensor's own
    if tensor._requires_grad:
        fn = tensor.grad_fn
        packed.grad_fn = grad_accumulator(tensor) if fn is None else fn
        packed.output_nr = tensor._out_nr if fn is not None else 0


def raw_saved(node, key) -> SavedTensor:
    """The `SavedTensor` for `node`'s saved value `key`; the same object while it lives."""
    cache = node.__dict__.get("_raw_saved")
    if cache is None:
        cache = node.__dict__["_raw_saved"] = weakref.WeakValueDictionary()
    raw = cache.get(key)
    if raw is None:
        raw = object.__new__(SavedTensor)
        raw._node = weakref.ref(node)
        raw._key = key
        cache[key] = raw
    return raw
