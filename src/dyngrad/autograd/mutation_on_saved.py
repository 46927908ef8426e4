"""`allow_mutation_on_saved_tensors`: tensors saved for backward may be modified in place; each
is copied just before its first write, and backward reads the copy.

# Note [Mutation on saved tensors]
# Inside the context every saved tensor is packed (See Note [Saved tensor hooks]) as a
# handle; the context maps the handle to the tensor as saved. A tensor is known by (its id,
# its buffer, its version) and its memory by (buffer, version): views share both with their
# base, so a write through any alias finds every handle that saved that memory at that
# version. Just before an in-place op or an `out=` writes into a tensor (Note [Writes into
# saved tensors]) the handles on its memory are copied, once each; unpacking a handle gives
# the copy if one was made, else the tensor itself. The same tensor saved twice at one
# version shares a handle and so one copy. Handles are held only by the nodes that packed
# them: when backward frees those nodes (or the graph goes), the entries go with them.
"""

from __future__ import annotations

import contextlib
import weakref
from collections import defaultdict

from ..graph import saved_hooks
from ..graph.grad_mode import no_grad
from .inspect_graph import buffer_of
from .saved_tensors import saved_tensors_hooks

__all__ = ["allow_mutation_on_saved_tensors"]

OUTSIDE = (
    "Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
    "in which the graph was originally recorded."
)
_enabled = False


class _Handle:
    __slots__ = ("__weakref__",)


def _ids(tensor) -> tuple:
    buffer = id(buffer_of(tensor._data))
    version = tensor._version_counter.value
    return (id(tensor), buffer, version), (buffer, version)


class _AllowMutationOnSavedContext:
    """The state of one `allow_mutation_on_saved_tensors` block (PyTorch's names)."""

    def __init__(self) -> None:
        self.cloned = weakref.WeakKeyDictionary()  # handle -> copy made before a write
        self.original = weakref.WeakKeyDictionary()  # handle -> the tensor as saved
        self.tid_to_weakhandle = weakref.WeakValueDictionary()
        self.sid_to_tid = defaultdict(set)

    def clear(self) -> None:
        self.cloned.clear()
        self.original.clear()
        self.tid_to_weakhandle.clear()
        self.sid_to_tid.clear()

    def pack(self, tensor) -> _Handle:
        tid, sid = _ids(tensor)
        self.sid_to_tid[sid].add(tid)
        handle = self.tid_to_weakhandle.get(tid)
        if handle is None:  # the same tensor at the same version shares its handle
            handle = self.tid_to_weakhandle[tid] = _Handle()
            self.original[handle] = tensor
        return handle

    def unpack(self, handle):
        if not _enabled:
            raise AssertionError(OUTSIDE)
        if handle in self.cloned:
            return self.cloned[handle]
        if handle not in self.original:
            raise AssertionError(OUTSIDE)
        return self.original[handle]

    def before_write(self, tensor) -> None:
        _, sid = _ids(tensor)
        for tid in self.sid_to_tid.get(sid, ()):
            handle = self.tid_to_weakhandle.get(tid)
            if handle is None or handle in self.cloned:  # freed by backward, or copied
                continue
            with no_grad():
                self.cloned[handle] = self.original.pop(handle).detach().clone()


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """Matches `torch.autograd.graph.allow_mutation_on_saved_tensors()`: inside it, a tensor
    saved for backward may be modified in place (it is copied first); forward and backward
    must both run inside. Yields the context's state (its `cloned` copies, ...).

        >>> with torch.autograd.graph.allow_mutation_on_saved_tensors():
        ...     b = a.clone(); out = (b**2).sum(); b.sin_(); out.backward()
    """
    global _enabled
    ctx = _AllowMutationOnSavedContext()
    with saved_tensors_hooks(ctx.pack, ctx.unpack):
        saved_hooks.write_watchers.append(ctx.before_write)
        try:
            if _enabled:
                raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
            _enabled = True
            yield ctx
        finally:
            saved_hooks.write_watchers.remove(ctx.before_write)
            ctx.clear()
            _enabled = False
