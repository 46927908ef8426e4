"""`torch.compile`: the compiled callable, its cache of guarded entries, `OptimizedModule`.

A compiled call runs the user's function as eager does (See Note [Capture by running]),
keyed by guards (See Note [Guards]); a call that compiles (a new guard set) also rebuilds
Dynamo's graphs and breaks (See Note [Dynamo's frame model]) and logs them; its outputs hang
from one CompiledFunctionBackward (See Note [One node per compiled call]).
"""

from __future__ import annotations

import functools
import inspect
import itertools
import sys
import warnings
from dataclasses import dataclass, field

from .._tensor import Tensor, watch_bumps
from ..autograd.scope import record_modules, recorded_spans
from ..graph.grad_mode import state as grad_state
from ..graph.node import _sequence
from ..nn.modules import stores as module_stores
from ..nn.modules.module import Module
from ..ops.table import record as recording
from . import config, frames, logs, python_guards
from . import guards as guarding
from .capture import PACKAGE, Capture, active, current
from .compiled_node import CompiledFunctionBackward, wrap_outputs
from .exc import InvalidBackend
from .reasons import Reason
from .replay import FAILED, STATE, Program, build
from .trace import Trace

__all__ = [
    "compile",
    "OptimizedModule",
    "reset",
    "disable",
    "is_compiling",
    "list_backends",
    "CodeCache",
    "replay_status",
    "ReplayStatus",
]

_BACKENDS = ("inductor", "eager", "aot_eager", "cudagraphs", "openxla", "tvm", "onnxrt", "tensorrt")


def list_backends(exclude_tags=("debug", "experimental")) -> list:
    """Matches `torch._dynamo.list_backends`: the backend names compile accepts."""
    return sorted(b for b in _BACKENDS if not exclude_tags or b not in ("eager", "aot_eager"))


_MODES = (None, "default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")


@dataclass
class Entry:
    guards: guarding.Guards
    graphs: list
    breaks: list
    compile_id: int
    replay: object = None  # a replay.Program, or why there is none (See Note [Replay])
    retraces: int = 0  # traces made again after what the Python read changed


@dataclass
class CodeCache:
    """Dynamo's per-code-object cache: its frame id, its entries, and whether it gave up."""

    frame_id: int
    entries: list = field(default_factory=list)
    eager: bool = False  # the recompile limit was hit: the function runs eagerly from now on
    replayed: object = None  # the Program replayed last (tried first: See Note [Replay])


_caches: dict = {}
_frame_ids = itertools.count()


@dataclass(frozen=True)
class Options:
    fullgraph: bool = False
    dynamic: bool | None = None
    backend: object = "inductor"
    mode: str | None = None
    disable: bool = False


def compile(  # noqa: A001 - torch.compile
    model=None,
    *,
    fullgraph: bool = False,
    dynamic: bool | None = None,
    backend="inductor",
    mode: str | None = None,
    options: dict | None = None,
    disable: bool = False,
    **kwargs,
):
    """Matches `torch.compile`: a function or module that gives eager's values and gradients,
    whose graphs and breaks are PyTorch's (see `torch._dynamo.explain`, TORCH_LOGS). Works as
    `@torch.compile` and `@torch.compile(fullgraph=True)`. Any backend/mode is accepted; the
    captured program runs on dyngrad's own kernels (docs/compile.md)."""
    if mode not in _MODES:
        raise RuntimeError(
            f"Unrecognized mode={mode}, should be one of: {', '.join(m for m in _MODES if m)}"
        )
    if mode is not None and options is not None:
        raise RuntimeError(
            "Either mode or options can be specified, but both can't be specified at the same time."
        )
    if isinstance(backend, str) and backend not in _BACKENDS:
        raise InvalidBackend(backend)
    opts = Options(fullgraph, dynamic, backend, mode, disable)
    if model is None:
        return lambda m: _compile(m, opts)
    return _compile(model, opts)


def _compile(model, opts: Options):
    if not callable(model):
        raise RuntimeError("torch.compile() expects a callable, got " + type(model).__name__)
    if isinstance(model, Module):
        return OptimizedModule(model, opts)
    return _compiled_function(model, opts)


def _compiled_function(fn, opts: Options, code=None):
    code = code if code is not None else _code_of(fn)
    names = arg_names(fn)

    @functools.wraps(fn)
    def compile_wrapper(*args, **kwargs):
        return _call(fn, code, names, args, kwargs, opts, None)

    compile_wrapper._torchdynamo_orig_callable = fn
    compile_wrapper._torchdynamo_options = opts
    return compile_wrapper


class OptimizedModule(Module):
    """Matches `torch._dynamo.eval_frame.OptimizedModule`: the compiled module, its original as
    `_orig_mod` (so state_dict keys start with `_orig_mod.`), other attributes read through."""

    def __init__(self, mod: Module, opts: Options) -> None:
        super().__init__()
        self._orig_mod = mod
        self.__dict__["_opts"] = opts
        self.__dict__["_names"] = arg_names(type(mod).forward)[1:]
        self.__dict__["_code"] = _code_of(type(mod).forward)
        self.training = mod.training

    def forward(self, *args, **kwargs):
        mod = self._orig_mod
        return _call(mod, self._code, self._names, args, kwargs, self._opts, mod)

    def __getattr__(self, name: str):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self.__dict__["_modules"]["_orig_mod"], name)

    def __reduce__(self):
        return (OptimizedModule, (self._orig_mod, self._opts))


def _module_compile(self, *args, **kwargs) -> None:
    """Matches `Module.compile`: compile this module's forward in place (its hooks stay
    outside the compiled call, where PyTorch compiles them with it)."""
    forward = type(self).forward.__get__(self)
    compiled = compile(forward, *args, **kwargs)
    if _code_of(forward).co_filename.startswith(PACKAGE):
        # PyTorch compiles `_call_impl`, torch's own frame, which Dynamo skips: a built-in
        # module (nn.Linear) compiled in place runs eagerly there, so it does here
        return
    object.__setattr__(self, "forward", compiled)


Module.compile = _module_compile  # library's Module gets its tool-layer method


def _code_of(fn):
    target = getattr(fn, "__func__", fn)
    code = getattr(target, "__code__", None)
    return code if code is not None else getattr(type(fn).__call__, "__code__", fn)


def arg_names(fn) -> list:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return []
    return [n for n, p in params.items() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def _call(fn, code, names, args, kwargs, opts: Options, module):
    if opts.disable or current() is not None:  # nested: the outer capture sees these ops
        return fn(*args, **kwargs)
    cache = _caches.get(code)
    if cache is None:
        cache = _caches[code] = CodeCache(next(_frame_ids))
    if cache.eager:
        return fn(*args, **kwargs)
    arguments = None
    last = cache.replayed
    if last is not None:  # the common case in a loop: the program replayed last time
        arguments = _flat(args, kwargs)
        why = last.unready(fn, arguments)
        if why is None:
            result = last.run(arguments)
            if result is not FAILED:
                return result
    now = guarding.observe(names, args, kwargs, module, opts.dynamic)
    entry = next((e for e in cache.entries if e.guards == now), None)
    retrace = False
    if entry is not None:  # an exact hit
        program = entry.replay
        if program is RETRACE:
            why = STATE
        if type(program) is Program:
            if arguments is None:
                arguments = _flat(args, kwargs)
            if program is not last:
                why = program.unready(fn, arguments)
                if why is None:
                    result = program.run(arguments)
                    if result is not FAILED:
                        cache.replayed = program
                        return result
        if type(program) is Program or program is RETRACE:
            # what the Python read changed (a global, a module's attribute): trace it anew
            retrace = why == STATE and config.replay and entry.retraces < config.limit()
        compiling = False
    else:
        failed = [guarding.failures(e.guards, now) for e in cache.entries]
        if cache.entries and all(failed) and not _room(cache, code, failed):
            return fn(*args, **kwargs)
        compiling = not cache.entries or all(failed)
    if compiling and cache.entries:
        logs.recompile(cache, code, failed)
        if opts.dynamic is not False and config.automatic_dynamic_shapes:
            now = guarding.widen([e.guards for e in cache.entries], now)
    label = f"{cache.frame_id}/{len(cache.entries)}"
    capture = Capture(sys._getframe(), detailed=compiling, fullgraph=opts.fullgraph, label=label)
    start = next(_sequence)
    tracing = (compiling or retrace) and config.replay
    if tracing:
        arguments = _flat(args, kwargs)
        result, program = _traced(capture, fn, args, kwargs, arguments, start)
    else:
        with active(capture):
            result = fn(*args, **kwargs)
    if compiling:
        graphs, breaks = frames.split(capture.events) if capture.events else ([], [])
        entry = Entry(now, graphs, breaks, len(cache.entries))
        cache.entries.append(entry)
        logs.compiled(cache, entry, capture.events)
    # the events' stacks hold the call's frames, whose `f_back` leads to this one: a cycle
    # through its locals (the call's result and graph) until a collection, otherwise
    capture.events.clear()
    capture.stop = None
    if grad_state.enabled:
        result = wrap_outputs(result, start)
    if tracing:
        replaced = entry.replay if retrace else None
        if retrace:
            entry.retraces += 1
        entry.replay = "the call has graph breaks" if entry.breaks else program()
        if type(replaced) is Program and type(entry.replay) is Program:
            entry.replay.runs = replaced.runs  # (replay_status counts the entry's replays)
        if type(entry.replay) is Program:
            entry.replay.adopt(_node_of(result))
            result = entry.replay.hand_over(result)
            cache.replayed = entry.replay
    return result


def _flat(args: tuple, kwargs: dict) -> list:
    # the call's arguments in one list: positional, then keywords by name, then the names
    # (a replay compares them with its trace's: `f(x, a=t)` is not `f(x, b=t)`)
    if not kwargs:
        return list(args)
    names = tuple(sorted(kwargs))
    return [*args, *(kwargs[k] for k in names), names]


def _traced(capture, fn, args, kwargs, arguments: list, start: int):
    """Run the compiled call with its ops traced and its Python watched (See Note [Replay]):
    its result, and a function that builds its replay (or the reason there is none)."""
    trace = capture.trace = Trace(arguments)
    watch = python_guards.Watch(is_made=lambda obj: id(obj) in trace.made)
    trace.outlives = watch.external
    recording.source_observer = trace.source
    unwatch = watch_bumps(trace.bumped)  # See Note [In-place steps]
    epoch = module_stores.epoch
    try:
        with record_modules(), active(capture), watch:
            result = fn(*args, **kwargs)
    finally:
        recording.source_observer = None
        unwatch()
        capture.trace = None
    if module_stores.epoch != epoch:
        # a module changed its own state while the call ran (a lazy module made its
        # parameters, a module set an attribute): a replay would not; the next call traces
        # again (See Note [Module state epoch])
        return result, lambda: RETRACE
    modules = _modules_called(start)
    return result, lambda: build(fn, trace, watch, result, arguments, modules, start)


RETRACE = "a module's state changed while the call ran: the next call is traced again"


def _modules_called(start: int) -> list:
    # the modules whose forward ran in the call (the spans recorded since it started)
    found = {}
    for span in recorded_spans():
        if span.start >= start:
            for m in span.path:
                if isinstance(m, Module):
                    found[id(m)] = m
    return list(found.values())


def _node_of(result):
    # the CompiledFunctionBackward a call's outputs hang from, if any
    if isinstance(result, Tensor):
        fn = result._grad_fn
        return fn if isinstance(fn, CompiledFunctionBackward) else None
    if type(result) in (tuple, list):
        for r in result:
            node = _node_of(r)
            if node is not None:
                return node
    if type(result) is dict:
        return _node_of(list(result.values()))
    return None


def _room(cache: CodeCache, code, failed: list) -> bool:
    """Whether another entry may be added; past the limit the function goes eager, warned."""
    if len(cache.entries) < config.limit():
        return True
    cache.eager = True
    warnings.warn(
        f"torch._dynamo hit config.recompile_limit ({config.limit()})\n"
        f"   function: '{code.co_name}' ({code.co_filename}:{code.co_firstlineno})\n"
        f"   last reason: {cache.frame_id}/{len(cache.entries) - 1}: {failed[-1][0]}\n"
        'To log all recompilation reasons, use TORCH_LOGS="recompiles".\n'
        "To diagnose recompilation issues, see "
        "https://pytorch.org/docs/main/torch.compiler_troubleshooting.html",
        stacklevel=4,
    )
    return False


def replay_status(compiled) -> list:
    """dyngrad only: for each compiled entry of `compiled` (a function or module made by
    `torch.compile`), how many calls were replayed without running its Python, or why none
    can be (See Note [Replay], docs/compile.md)."""
    if isinstance(compiled, OptimizedModule):
        code = compiled._code
    else:
        code = _code_of(getattr(compiled, "_torchdynamo_orig_callable", compiled))
    cache = _caches.get(code)
    rows = []
    for e in cache.entries if cache is not None else ():
        program = e.replay
        if type(program) is Program:
            rows.append(ReplayStatus(e.compile_id, program.runs, None, program.sources()))
        else:
            rows.append(ReplayStatus(e.compile_id, 0, program or "replay is off"))
    return rows


@dataclass(frozen=True)
class ReplayStatus:
    entry: int  # the compiled entry's number (PyTorch's compile id: the "1" of [0/1])
    replayed: int  # calls run from the trace, without the Python
    refused: str | None  # why this entry's calls always run the Python (None: replayable)
    # what a replay runs: its generated forward and backward (See Note [Straight-line replay])
    source: str | None = field(default=None, repr=False)


def reset() -> None:
    """Matches `torch._dynamo.reset` / `torch.compiler.reset`: forget every compiled entry."""
    _caches.clear()
    logs.reset()


def is_compiling() -> bool:
    """Matches `torch.compiler.is_compiling`: True inside a compiled call's capture."""
    capture = current()
    return capture is not None and not capture.quiet


def disable(fn=None, recursive: bool = True, *, reason: str | None = None):
    """Matches `torch.compiler.disable`: `fn` runs eagerly, outside any capture (a graph break
    where a compiled function calls it, as in PyTorch)."""
    if fn is None:
        return functools.partial(disable, recursive=recursive, reason=reason)

    @functools.wraps(fn)
    def eager(*args, **kwargs):
        capture = current()
        if capture is None or capture.quiet:
            return fn(*args, **kwargs)
        capture.brk(_skip_reason(reason), sys._getframe(1))
        capture.quiet = True
        try:
            return fn(*args, **kwargs)
        finally:
            capture.quiet = False

    eager._torchdynamo_disable = True
    return eager


def _skip_reason(reason):
    return Reason(
        "Skip calling `torch.compiler.disable()`d function",
        f"Skip calling function `{reason}` since it was wrapped with `torch.compiler.disable` "
        "(reason: None)",
        ("Remove the `torch.compiler.disable` call",),
        "gb0098",
    )
