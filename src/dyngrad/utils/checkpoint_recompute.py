"""The non-reentrant checkpoint: saved tensors kept as holders, recomputed on first unpack
(See Note [Checkpoint] in checkpoint.py)."""

from __future__ import annotations

import contextlib
import weakref

from .._tensor import Tensor, user_site
from ..autograd.saved_tensors import saved_tensors_hooks
from ..graph import passes, saved_hooks
from ..graph.grad_mode import enable_grad
from ..graph.grad_mode import state as grad_state
from ..runtime.random import default_generator

__all__ = [
    "CheckpointError",
    "GraphExecGroup",
    "noop_context_fn",
    "run_without_reentrant",
    "rng_state_of",
    "autocast_as_now",
    "set_checkpoint_debug_enabled",
    "set_checkpoint_early_stop",
]

_debug_enabled: bool | None = None
_early_stop_enabled: bool | None = None


class above:
    """What autocast (a tool above this layer) hands in when it loads (See Note [Calls up the
    layers]): `autocast_as_now()`, a factory of a context manager that enters again the
    autocast state open now. Recomputation runs under the forward's, as PyTorch's."""

    autocast_as_now = None


def autocast_as_now():
    """A factory of a context manager that re-enters the autocast state of this moment."""
    if above.autocast_as_now is None:
        return contextlib.nullcontext
    return above.autocast_as_now()


class CheckpointError(RuntimeError):
    """Matches `torch.utils.checkpoint.CheckpointError`."""


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled: bool | None):
    """Matches `torch.utils.checkpoint.set_checkpoint_debug_enabled`: overrides `debug=` of
    every checkpoint inside (None defers to it)."""
    global _debug_enabled
    previous = _debug_enabled
    try:
        _debug_enabled = enabled
        yield
    finally:
        _debug_enabled = previous


@contextlib.contextmanager
def set_checkpoint_early_stop(enable: bool):
    """Matches `torch.utils.checkpoint.set_checkpoint_early_stop`: whether a non-reentrant
    checkpoint whose forward runs inside stops recomputing once it has what backward needs."""
    global _early_stop_enabled
    previous = _early_stop_enabled
    try:
        _early_stop_enabled = enable
        yield
    finally:
        _early_stop_enabled = previous


def noop_context_fn():
    """Matches `torch.utils.checkpoint.noop_context_fn`: the default `context_fn`."""
    return contextlib.nullcontext(), contextlib.nullcontext()


@contextlib.contextmanager
def rng_state_of(state):
    # See Note [Checkpoint]: the forward's RNG state for the recomputation, then back
    if state is None:
        yield
        return
    outer = default_generator.get_state()
    default_generator.set_state(state)
    try:
        yield
    finally:
        default_generator.set_state(outer)


# ---- use_reentrant=False --------------------------------------------------------------------


class _StopRecomputationError(Exception):
    pass


class _Holder:
    """What a node keeps in place of a tensor saved inside a non-reentrant checkpoint."""

    __slots__ = ("frame", "values", "__weakref__")
    saved_label = "recomputed by checkpoint"

    def __init__(self, frame):
        self.frame = frame
        self.values = {}  # backward pass (gid) -> recomputed tensor; None once handed out

    def held_tensors(self) -> list:
        # what keeping this holder keeps alive: the region's inputs (Note [Saved bytes])
        return self.frame.saved_args


class _Frame:
    """One call of a non-reentrant checkpoint: its inputs, its holders, its recomputations."""

    def __init__(self, recompute, early_stop: bool, metadata_fn, debug: bool):
        self.recompute = recompute
        self.early_stop = early_stop
        self.metadata_fn = metadata_fn
        self.debug = debug
        self.saved_args: list = []
        self.holders: list = []  # weak references, in the order the forward saved
        self.metadata: list = []
        self.counters: dict = {}  # gid -> tensors recomputed so far
        self.recomputed: set = set()  # the gids whose recomputation ran
        self.forward_completed = False
        self.ignore_saved_mismatch = False
        self.forward_log: list = []
        self.recompute_log: list = []

    def save_inputs(self, args) -> None:
        self.saved_args = [
            saved_hooks.save_standalone(a) if isinstance(a, Tensor) else a for a in args
        ]

    def inputs(self) -> list:
        return [
            saved_hooks.unpack_standalone(a, "torch.utils.checkpoint (an input of the function)")
            if isinstance(a, (saved_hooks.Standalone, saved_hooks.Packed))
            else a
            for a in self.saved_args
        ]

    def pack(self, x) -> _Holder:
        holder = _Holder(self)
        self.holders.append(weakref.ref(holder))
        if self.metadata_fn is not None:
            self.metadata.append(self.metadata_fn(x))
        if self.debug:
            self.forward_log.append(_log_line(x))
        return holder

    def unpack(self, holder: _Holder):
        gid = GraphExecGroup._current or passes.running()
        if gid is None:  # read outside any backward (`grad_fn._saved_self`): recompute anew
            gid = object()
        if gid not in self.recomputed:
            self._recompute(gid)
        value = holder.values.get(gid)
        if value is None:
            overlap = (
                "Performing two backward calls that overlap (i.e. require the same saved "
                "activation in order to compute gradients) is not allowed while under the "
                "torch.utils.checkpoint.GraphExecGroup context. "
                if GraphExecGroup._current is not None
                else ""
            )
            raise CheckpointError(
                "torch.utils.checkpoint: Unpack is being triggered for a tensor that was "
                f"already unpacked once. {overlap}If you are calling ctx.saved_tensors in "
                "backward, make sure to do so only once. Otherwise please open an issue with "
                "details on your use case."
            )
        holder.values[gid] = None
        return value

    def _recompute(self, gid) -> None:
        args = self.inputs()
        self.counters[gid] = 0
        self.recompute_log = []
        try:
            with _RecomputationHooks(self, gid), enable_grad():
                self.recompute(*args)
        except _StopRecomputationError:
            pass
        self.recomputed.add(gid)
        try:
            self._check_recomputed(gid)
        except CheckpointError as error:
            if self.debug:
                raise CheckpointError(_debug_report(self, error)) from error
            raise

    def pack_recomputed(self, gid, x):
        x = x.detach() if x.requires_grad else x
        index = self.counters[gid]
        self.counters[gid] = index + 1
        if self.debug:
            self.recompute_log.append(_log_line(x))
        if index >= len(self.holders):
            if not self.forward_completed:  # a backward inside the checkpointed function
                self.ignore_saved_mismatch = True
                return x
            raise CheckpointError(
                "torch.utils.checkpoint: trying to save more tensors during recomputation "
                f"than during the original forward pass.\n{_DEBUG_TIP}"
            )
        holder = self.holders[index]()
        if holder is not None:  # (None: a backward already freed the node that kept it)
            holder.values[gid] = x
        if self.early_stop and index + 1 == len(self.holders):
            raise _StopRecomputationError
        return x

    def _check_recomputed(self, gid) -> None:
        if self.ignore_saved_mismatch:
            return
        if len(self.holders) != self.counters[gid]:
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the "
                "original forward and recomputation.\n"
                f"Number of tensors saved during forward: {len(self.holders)}\n"
                f"Number of tensors saved during recomputation: {self.counters[gid]}.\n"
                f"{_DEBUG_TIP}"
            )
        if self.metadata_fn is None:
            return
        different = []
        for index, ref in enumerate(self.holders):
            holder = ref()
            if holder is None or holder.values.get(gid) is None:
                continue
            recomputed = self.metadata_fn(holder.values[gid])
            if recomputed != self.metadata[index]:
                different.append(
                    f"tensor at position {index}:\nsaved metadata: {self.metadata[index]}\n"
                    f"recomputed metadata: {recomputed}\n"
                )
        if different:
            raise CheckpointError(
                "torch.utils.checkpoint: Recomputed values for the following tensors have "
                f"different metadata than during the forward pass.\n{''.join(different)}.\n"
                f"{_DEBUG_TIP}"
            )


class _CheckpointHooks(saved_tensors_hooks):
    """The forward's hooks: each saved tensor becomes a holder of the frame."""

    def __init__(self, frame: _Frame):
        super().__init__(frame.pack, frame.unpack)


class _RecomputationHooks(saved_tensors_hooks):
    """The recomputation's hooks: each saved tensor fills the next holder of the frame."""

    def __init__(self, frame: _Frame, gid):
        super().__init__(lambda x: frame.pack_recomputed(gid, x), _identity)


def _identity(x):
    return x


def _default_metadata(x) -> dict:
    return {"shape": x.shape, "dtype": x.dtype, "device": x.device}


_DETERMINISM_CHECKS = {"default": _default_metadata, "none": None}

_DEBUG_TIP = """
Tip: To see a more detailed error message, either pass `debug=True` to
`torch.utils.checkpoint.checkpoint(...)` or wrap the code block
with `with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to
enable checkpoint-debug mode globally.
"""


def _log_line(x) -> str:
    node = saved_hooks.saving_node()
    site = user_site(3)
    where = f" at {site[0]}:{site[1]}" if site else ""
    name = node.name() if node is not None else "a node"
    return f"{name} saved a tensor {tuple(x.shape)} {x.dtype}{where}"


def _debug_report(frame: _Frame, error: CheckpointError) -> str:
    # See Note [Checkpoint]: debug=True lists what each run saved, and where
    def listing(lines):
        return "\n".join(f"  {i + 1}. {line}" for i, line in enumerate(lines)) or "  (none)"

    return (
        "An error happened while unpacking tensors; dumping logs of latest computation because "
        "you passed `debug=True` to `torch.utils.checkpoint.checkpoint()`.\n\n"
        f"Tensors saved during the original forward:\n{listing(frame.forward_log)}\n\n"
        f"Tensors saved during recomputation:\n{listing(frame.recompute_log)}\n\n"
        "ERROR: Detected non-determinism while running activation checkpointing\n"
        "You are seeing this error because you passed `debug=True` to checkpoint and the "
        "tensors saved during the original forward differ from those saved during "
        "recomputation: the two lists above should match line for line (a different op, "
        "or the same op on a different shape, shows where the function took another path).\n"
        f"{error}"
    )


class GraphExecGroup:
    """Matches `torch.utils.checkpoint.GraphExecGroup`: the backward calls inside one group
    recompute each non-reentrant checkpointed region at most once."""

    _current = None

    def __enter__(self):
        if GraphExecGroup._current is not None:
            raise RuntimeError(
                "GraphExecGroup contexts cannot be nested. Already inside group "
                f"{GraphExecGroup._current}"
            )
        GraphExecGroup._current = self
        return self

    def __exit__(self, *args) -> None:
        GraphExecGroup._current = None


def run_without_reentrant(
    function, preserve, context_fn, determinism_check, debug, early_stop, args, kwargs
):
    """`checkpoint(..., use_reentrant=False)`: run `function` under a frame's hooks."""
    debug = _debug_enabled if _debug_enabled is not None else debug
    if debug and context_fn is not noop_context_fn:
        raise ValueError("debug=True is incompatible with non-default context_fn")
    if determinism_check not in _DETERMINISM_CHECKS:
        raise ValueError(
            f"determinism_check should be one of {list(_DETERMINISM_CHECKS)}, but got "
            f"{determinism_check}"
        )
    forward_context, recompute_context = context_fn()
    if not grad_state.enabled:  # nothing is saved: no recomputation to prepare
        return function(*args, **kwargs)
    rng_state = default_generator.get_state() if preserve else None
    autocast_again = autocast_as_now()

    def recompute(*inputs):
        with rng_state_of(rng_state), autocast_again(), recompute_context:
            function(*inputs, **kwargs)

    stop = _early_stop_enabled if _early_stop_enabled is not None else early_stop
    frame = _Frame(recompute, stop, _DETERMINISM_CHECKS[determinism_check], debug)
    frame.save_inputs(args)
    with _CheckpointHooks(frame), forward_context:
        result = function(*args, **kwargs)
    frame.forward_completed = True
    return result
