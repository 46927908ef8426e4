"""`torch.autograd.Variable._execution_engine`: the engine as old code and PyTorch's own
helpers reach it (final callbacks, `run_backward`, whether checkpointing is valid)."""

from __future__ import annotations

from .engine import backward, current_task, grad

__all__ = ["ExecutionEngine", "execution_engine"]


class ExecutionEngine:
    """Matches `torch._C._ImperativeEngine` as far as Python code uses it."""

    def queue_callback(self, callback) -> None:
        """Run `callback()` once the running backward pass is done."""
        task = current_task()
        if task is None:
            raise RuntimeError("Final callbacks can only be installed during backward pass.")
        task.callbacks.append(callback)

    def is_checkpoint_valid(self) -> bool:
        """False inside a pass that computes gradients for chosen inputs only (`grad()`,
        `backward(inputs=)`), where reentrant checkpointing can't work."""
        task = current_task()
        return task is None or task.needed is None

    def run_backward(
        self,
        tensors,
        grad_tensors,
        keep_graph,
        create_graph,
        inputs=(),
        allow_unreachable=False,
        accumulate_grad=True,
    ):
        """The engine call behind `backward()` and `grad()`."""
        if accumulate_grad:
            backward(tensors, grad_tensors, keep_graph, create_graph, inputs=inputs or None)
            return ()
        return grad(
            tensors, inputs, grad_tensors, keep_graph, create_graph, allow_unused=allow_unreachable
        )


execution_engine = ExecutionEngine()
