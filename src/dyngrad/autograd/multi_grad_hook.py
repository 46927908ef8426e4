"""`torch.autograd.graph.register_multi_grad_hook`: one hook over the gradients of several
tensors, called once per backward pass."""

from __future__ import annotations

from .._handles import RemovableHandle
from .engine import current_task
from .gradient_edge import edge_of

__all__ = ["register_multi_grad_hook"]


class _MultiHandle(RemovableHandle):
    """Removes every tensor hook a multi-grad hook put in place."""

    __slots__ = ("handles",)

    def __init__(self, handles: tuple) -> None:
        self.handles = handles

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()


def register_multi_grad_hook(tensors, fn, *, mode: str = "all"):
    """Matches `torch.autograd.graph.register_multi_grad_hook`.

    "all": `fn(grads)` once every tensor's gradient this pass computes is there (None for the
    tensors the pass does not reach); "any": `fn(grad)` with the first gradient of a pass.
    """
    supported = ("all", "any")
    if mode not in supported:
        raise ValueError(f"Expects mode to be one of {supported} but got {mode}")
    tensors = tuple(tensors)
    if mode == "any":
        return _any_hook(tensors, fn)
    nodes = [edge_of(t)[0] for t in tensors]
    pending: dict = {}  # pass number -> [gradients so far, how many are still to come]

    def hook_for(index: int):
        def inner(grad) -> None:
            task = current_task()
            if task.number not in pending:
                expected = sum(task.will_execute(node) for node in nodes)
                pending[task.number] = [[None] * len(tensors), expected]
            grads, _ = entry = pending[task.number]
            grads[index] = grad
            entry[1] -= 1
            if entry[1] == 0:
                del pending[task.number]
                fn(grads)

        return inner

    return _MultiHandle(tuple(t.register_hook(hook_for(i)) for i, t in enumerate(tensors)))


def _any_hook(tensors: tuple, fn):
    ran: set = set()  # the numbers of the passes that already called fn

    def inner(grad) -> None:
        number = current_task().number
        if number in ran:
            return
        ran.add(number)
        fn(grad)

    return _MultiHandle(tuple(t.register_hook(inner) for t in tensors if t.requires_grad))
