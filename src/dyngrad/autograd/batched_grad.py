"""`torch.autograd.grad(..., is_grads_batched=True)`: the first dim of each grad_output is a
batch, and each input's gradient gains that dim.

PyTorch vmaps one backward over the batch; dyngrad runs one backward per row, keeping the
graph for the next (what PyTorch itself falls back to where vmap cannot), and stacks the rows'
gradients. Values and the graph under create_graph are the same; the time grows with the
batch.
"""

from __future__ import annotations

from ..ops.creation.factories import zeros_like
from ..ops.shape.joining import stack

__all__ = ["batched_grad"]


def _check_shapes(outputs, grad_outputs) -> None:
    for i, (out, go) in enumerate(zip(outputs, grad_outputs)):
        if go is not None and tuple(go.shape[1:]) != tuple(out.shape):
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each "
                "grad_output as the batch dimension. The sizes of the remaining dimensions are "
                "expected to match the shape of corresponding output, but a mismatch was "
                f"detected: grad_output[{i}] has a shape of {go.shape[1:]} and output[{i}] has a "
                f"shape of {out.shape}. If you only want some tensors in `grad_output` to be "
                "considered batched, consider using vmap."
            )


def batched_grad(grad, unused, outputs, inputs, grad_outputs, retain_graph, create_graph):
    """`grad` (engine.grad) once per row of `grad_outputs` (tuples, checked by the caller),
    each input's rows stacked; `unused(i, t)` answers for an input no row reached."""
    _check_shapes(outputs, grad_outputs)
    n = next(go.shape[0] for go in grad_outputs if go is not None)
    if retain_graph is None:
        retain_graph = create_graph
    rows = [
        grad(
            outputs,
            inputs,
            tuple(None if go is None else go[b] for go in grad_outputs),
            retain_graph=retain_graph if b == n - 1 else True,
            create_graph=create_graph,
            allow_unused=True,
        )
        for b in range(n)
    ]
    result = []
    for i, t in enumerate(inputs):
        grads = [row[i] for row in rows]
        if all(g is None for g in grads):
            result.append(unused(i, t))  # None, zeros (not batched, as PyTorch's) or the error
            continue
        result.append(stack([zeros_like(t) if g is None else g for g in grads]))
    return tuple(result)
