"""`torch.utils.checkpoint`: activation checkpointing, trading compute for memory.

A checkpointed function keeps only its inputs for backward; what its ops would have saved is
recomputed by running it again when backward first needs it.

# Note [Checkpoint]
# Two ways, as PyTorch's:
# - use_reentrant=True: a custom Function (`CheckpointFunction`) runs the function under
#   no_grad in forward and, in its backward, runs it again with grad on and calls backward()
#   inside backward (Note [Reentrant backward]). It cannot serve `autograd.grad` or
#   `backward(inputs=...)`, whose pass runs towards some inputs only.
# - use_reentrant=False: the function runs with grad on, under saved-tensor hooks (Note
#   [Saved tensor hooks]) whose pack keeps a holder in place of each tensor a node saves.
#   The first unpack in a backward pass re-runs the function under recomputation hooks that
#   fill the holders in the order the forward saved them, stopping as soon as all are filled
#   (early stop); each unpack hands its recomputed tensor out once. The graph is the
#   forward's own, so every way of running backward works, and a checkpoint nested inside
#   another saves its inputs through the outer one's hooks (recomputing the outer region
#   first when they are needed). The shapes, dtypes and devices of what was saved and of
#   what is recomputed are compared (`determinism_check`).
# Both restore the forward's RNG state while recomputing (`preserve_rng_state`), so dropout
# draws the same mask, and its autocast state, so recomputed ops cast as the forward's did
# (dyngrad has no device RNG).
# The non-reentrant machinery (frames, holders, the recomputation) is checkpoint_recompute.py.
"""

from __future__ import annotations

import enum
import warnings

from .._tensor import Tensor
from ..autograd.engine import _is_checkpoint_valid
from ..autograd.engine import backward as _backward
from ..autograd.function import Function
from ..graph.grad_mode import enable_grad, no_grad
from ..nn.modules.container import Sequential
from ..runtime.random import default_generator
from .checkpoint_recompute import (
    CheckpointError,
    GraphExecGroup,
    autocast_as_now,
    noop_context_fn,
    rng_state_of,
    run_without_reentrant,
    set_checkpoint_debug_enabled,
    set_checkpoint_early_stop,
)

__all__ = [
    "checkpoint",
    "checkpoint_sequential",
    "CheckpointError",
    "CheckpointFunction",
    "check_backward_validity",
    "detach_variable",
    "noop_context_fn",
    "set_checkpoint_early_stop",
    "set_checkpoint_debug_enabled",
    "CheckpointPolicy",
    "SelectiveCheckpointContext",
    "create_selective_checkpoint_contexts",
    "GraphExecGroup",
]


def detach_variable(inputs: tuple) -> tuple:
    """Matches `torch.utils.checkpoint.detach_variable`."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(
            "Only tuple of tensors is supported. Got Unsupported input type: "
            f"{type(inputs).__name__}"
        )
    out = []
    for inp in inputs:
        if isinstance(inp, Tensor):
            x = inp.detach()
            x.requires_grad = inp.requires_grad
            inp = x
        out.append(inp)
    return tuple(out)


def check_backward_validity(inputs) -> None:
    """Matches `torch.utils.checkpoint.check_backward_validity`."""
    if not any(isinstance(inp, Tensor) and inp.requires_grad for inp in inputs):
        warnings.warn(
            "None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2
        )


# ---- use_reentrant=True ---------------------------------------------------------------------


class CheckpointFunction(Function):
    """The reentrant checkpoint (See Note [Checkpoint])."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.rng_state = default_generator.get_state() if preserve_rng_state else None
        ctx.autocast_again = autocast_as_now()
        # non-tensor arguments are kept as they are; tensors are saved for backward
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.save_for_backward(*(a for a in args if isinstance(a, Tensor)))
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        if not _is_checkpoint_valid():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() "
                "or passing an `inputs` parameter to .backward(). To resolve this error, you "
                "can either set use_reentrant=False, or call .backward() without passing the "
                "`inputs` argument."
            )
        inputs = list(ctx.inputs)
        for index, tensor in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[index] = tensor
        with rng_state_of(ctx.rng_state), ctx.autocast_again():
            detached = detach_variable(tuple(inputs))
            with enable_grad():
                outputs = ctx.run_function(*detached)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [
            (out, g)
            for out, g in zip(outputs, grads)
            if isinstance(out, Tensor) and out.requires_grad
        ]
        if not pairs:
            raise RuntimeError(
                "none of output has requires_grad=True, this checkpoint() is not necessary"
            )
        _backward([out for out, _ in pairs], [g for _, g in pairs])
        grads_in = tuple(inp.grad if isinstance(inp, Tensor) else None for inp in detached)
        return (None, None) + grads_in


USE_REENTRANT_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting "
    "in PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. "
    "use_reentrant=False is recommended, but if you need to preserve the current default "
    "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
    "differences between the two variants."
)


def checkpoint(
    function,
    *args,
    use_reentrant: bool | None = None,
    context_fn=noop_context_fn,
    determinism_check: str = "default",
    debug: bool = False,
    early_stop: bool = True,
    **kwargs,
):
    """Matches `torch.utils.checkpoint.checkpoint`: run `function(*args, **kwargs)` keeping
    only its inputs for backward; backward runs it again (See Note [Checkpoint]).

    `preserve_rng_state=True` (a keyword) replays the forward's random numbers. Without
    `use_reentrant` PyTorch's warning is given and the reentrant way is taken.

        >>> y = checkpoint(block, x, use_reentrant=False)
    """
    if use_reentrant is None:
        warnings.warn(USE_REENTRANT_WARNING, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError(
                "Passing `context_fn` or `debug` is only supported when use_reentrant=False."
            )
        return CheckpointFunction.apply(function, preserve, *args)
    return run_without_reentrant(
        function, preserve, context_fn, determinism_check, debug, early_stop, args, kwargs
    )


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Matches `torch.utils.checkpoint.checkpoint_sequential`: run `functions` (an
    `nn.Sequential` or a list) in `segments` chunks, checkpointing all but the last."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should "
            "be passed explicitly. In version 2.9 we will raise an exception if use_reentrant "
            "is not passed. use_reentrant=False is recommended, but if you need to preserve "
            "the current default behavior, you can pass use_reentrant=True. Refer to docs for "
            "more details on the differences between the two variants.",
            stacklevel=2,
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if isinstance(functions, Sequential):
        functions = list(functions.children())

    def run(start, end):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x

        return forward

    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(
            run(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve
        )
    return run(end + 1, len(functions) - 1)(input)


# ---- selective checkpointing: not built ------------------------------------------------------


class CheckpointPolicy(enum.Enum):
    """Matches `torch.utils.checkpoint.CheckpointPolicy` (the names; selective checkpointing
    itself is not supported)."""

    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3
    MUST_CPU_OFFLOAD = 4
    PREFER_CPU_OFFLOAD = 5


class SelectiveCheckpointContext:
    """Matches `torch.utils.checkpoint.SelectiveCheckpointContext` (the class only)."""

    def __init__(self, *, is_recompute, op_output=None) -> None:
        self.is_recompute = is_recompute
        self.op_output = op_output


def create_selective_checkpoint_contexts(policy_fn_or_list, allow_cache_entry_mutation=False):
    """`torch.utils.checkpoint.create_selective_checkpoint_contexts`: not supported."""
    raise NotImplementedError(
        "dyngrad does not support selective activation checkpointing "
        "(torch.utils.checkpoint.create_selective_checkpoint_contexts): its policies are "
        "written against PyTorch's dispatcher ops (torch.ops.aten.*). Checkpoint the whole "
        "region with checkpoint(fn, ..., use_reentrant=False) instead."
    )
