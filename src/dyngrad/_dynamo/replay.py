"""A compiled call run again without its Python: the traced ops on new arrays.

# Note [Replay]
# A compiled call normally runs the user's Python (Note [Capture by running]). Where it can
# be shown that running it again would do exactly what the traced call did, later calls run
# the trace instead (trace.py): each op's row forward on the new arrays, no Module calls,
# no Tensor or node per op, no argument parsing, then one CompiledFunctionBackward whose
# backward is the captured graph run as a program (Note [Compiled backward]). What makes it
# "the same call" is checked before every replay, and any doubt runs the Python instead:
#   - the Python read nothing it did not guard: python_guards.py watched every opcode of the
#     user's frames while the trace ran (globals, closure cells, attributes, items read; no
#     writes outside the call's own objects, no unknown builtins, no exception);
#   - the tensors: each argument's shape, strides, dtype and requires_grad (Note [Guards]
#     covers all but shape and strides: a replay needs the exact ones), no two arguments the
#     same tensor; each tensor the call read that existed before it (a parameter, a tensor
#     in a global or closure) the same object with the same shape, strides, dtype,
#     requires_grad;
#   - every module the call ran: its training flag, its plain attributes (`p`, `eps`...),
#     its parameters, buffers and submodules, and no hooks;
#   - the global state the ops read: grad mode and autocast (Note [Guards]), inference mode,
#     anomaly mode, the default dtype, no op observer (the doctor, the profiler), no
#     saved-tensor hooks, no global module hooks;
#   - the captured graph is free: the last call's graph was run backward or dropped.
# Random ops draw from their generator again, in eager's order (Note [Replayable sources]).
# The captured nodes are reused: each replay points the tensors they saved at the new arrays
# and re-reads the versions of what they saved from outside the call (a parameter the
# optimizer changed in place since is saved anew, as eager would save it).
"""

from __future__ import annotations

import threading
import weakref
from itertools import chain

import numpy as np

from .._tensor import Tensor, VersionCounter, new_tensor
from ..graph import anomaly_mode as anomaly
from ..graph import saved_hooks
from ..graph.grad_mode import state as grad_state
from ..graph.saved import SavedOutput
from ..graph.saved_hooks import Packed
from ..nn.modules import hooks as module_hooks
from ..nn.modules import stores as module_stores
from ..nn.modules.stores import Store
from ..ops.table import record as recording
from ..ops.table.nodes import OpNode
from ..ops.table.record import gradient_edge
from ..runtime.dtypes import defaults
from ..runtime.random import default_generator
from . import python_guards
from .compiled_node import CompiledFunctionBackward, boundary, newest_first, plan_of, rebuild
from .straight_line import replay_attach, replay_backward, replay_forward
from .trace import Arg, ArrayOf, OpStep

__all__ = ["Program", "build", "FAILED", "BUSY", "CALL", "STATE"]

_ndarray = np.ndarray
_SCALARS = (int, float, complex, bool, str, bytes, type(None))
_HOOKS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks")


_IDENTITY = object()  # an argument compared by identity


class _RefusedError(Exception):
    """Why a compiled call is not replayed (its Python runs on every call instead)."""


def build(callee, trace, watch, result, arguments: list, modules: list, start_seq: int):
    """The replay of a traced call of `callee`, or the reason (a string) there is none."""
    try:
        return Program(callee, trace, watch, result, arguments, modules, start_seq)
    except _RefusedError as exc:
        return str(exc)


class Program:
    """One traced call, ready to run again. See Note [Replay]."""

    def __init__(self, callee, trace, watch, result, arguments, modules, start_seq) -> None:
        self.callee = callee  # the function or module called: one code object may serve many
        if trace.refusal is not None:
            raise _RefusedError(trace.refusal)
        if trace.unaccounted() is not None:  # See Note [In-place steps]
            raise _RefusedError(
                f"a tensor was written outside the traced ops ({trace.unaccounted()})"
            )
        if watch.refusal is not None:
            raise _RefusedError(watch.refusal)
        if not trace.arrays_kept():
            raise _RefusedError("a tensor's array was replaced after the op that made it")
        self.steps = trace.steps
        self.made_ids = trace.made.keys()
        self.py_guards = watch.guards
        self._arguments(trace, arguments)
        # a module whose forward ran may use its submodules' tensors without running them
        # (MultiheadAttention reads out_proj.weight): they are guarded as the others
        modules = list({id(d): d for m in modules for d in m.modules()}.values())
        self._modules(modules)
        self._externals(trace, modules, watch)
        self.template, outputs = _template(result, trace)
        self.default_float = defaults.float
        self.grad_mode = grad_state.enabled
        self.outputs = outputs  # the made tensors returned, in the template's order
        self.rng = _draws_then_indexes(self.steps)
        self.owner = None  # the node of the last call's outputs (See `ready`)
        self.runs = 0  # replays so far (`replay_status`)
        self._lock = threading.Lock()
        self.graph = None
        name = getattr(callee, "__qualname__", type(callee).__qualname__)
        if grad_state.enabled and any(t._requires_grad for t in outputs):
            self.graph = _Graph(self, trace, arguments, start_seq, name)
        for t in outputs:
            if t._base is not None and id(t._base) not in trace.made:
                raise _RefusedError("the call returns a view of a tensor it did not make")
            if t._base is not None and any(t._base is o for o in outputs):
                raise _RefusedError("the call returns a tensor and a view of it")
        # See Note [Straight-line replay]
        self.forward, self.forward_source = replay_forward(
            name, trace.steps, trace.aliases, arguments, _run_step
        )

    def hand_over(self, result):
        """The traced call's `result` without the tensors the trace owns: each replay writes
        new arrays into those, so the caller gets its own tensor on the same array."""
        made = self.made_ids

        def swap(t):
            if id(t) not in made:
                return t
            out = new_tensor(t._data, t._requires_grad, t._grad_fn, t._out_nr)
            out._version_counter = t._version_counter
            return out

        return rebuild(result, swap)

    def sources(self) -> str:
        """The Python a replay runs (See Note [Straight-line replay]): the forward, then the
        backward of its graph, if its outputs require grad."""
        backward = "" if self.graph is None else "\n" + self.graph.backward_source
        return self.forward_source + backward

    def adopt(self, node) -> None:
        """The traced call's own outputs hang from `node`, over the same captured nodes."""
        self.owner = weakref.ref(node) if node is not None else None

    # ---- what is checked before a replay (See Note [Replay]) -------------------------------
    def _arguments(self, trace, arguments: list) -> None:
        self.n_arguments = len(arguments)
        self.tensor_args = []  # (index, its `_layout`)
        self.values = []  # (index, type, value): the numbers the call was given
        seen = set()
        for i, a in enumerate(arguments):
            if isinstance(a, Tensor):
                if id(a) in seen:
                    raise _RefusedError("the same tensor is passed twice")
                seen.add(id(a))
                layout = _layout(a)
                if layout is None:
                    raise _RefusedError("an argument holds no NumPy array")
                self.tensor_args.append((i, layout))
            elif isinstance(a, _SCALARS) or python_guards.immutable(a):
                self.values.append((i, type(a), a))
            elif type(a) in (list, dict, set):
                raise _RefusedError(
                    f"argument {i} is a {type(a).__name__} (a new one on each call)"
                )
            else:  # a module, a function, an object: the very same one on each replay
                self.values.append((i, _IDENTITY, a))

    def _modules(self, modules: list) -> None:
        # every dict a module's forward may read (its attributes, parameters, buffers,
        # submodules and hooks), whose values are compared by identity in one pass per call
        self.module_dicts = []
        self.hook_dicts = []  # (a hook is added into its dict: the dict itself stays)
        for m in modules:
            if _has_hooks(m):
                raise _RefusedError(f"{type(m).__name__} has hooks")
            d = m.__dict__
            self.module_dicts += (d, d["_parameters"], d["_buffers"], d["_modules"])
            self.hook_dicts += (getattr(m, name) for name in _HOOKS)
        self.module_state = _values(self.module_dicts)
        # See Note [Module state epoch]: while no module changed, none need comparing
        counted = all(type(d) is Store for d in (*self.module_dicts[1::4], *self.hook_dicts))
        self.epoch = module_stores.epoch if counted else None

    def _externals(self, trace, modules: list, watch) -> None:
        owned = set()
        for m in modules:
            for p in m._parameters.values():
                owned.add(id(p))
            for b in m._buffers.values():
                owned.add(id(b))
        owned.update(python_guards.tensors_read(watch.guards))
        self.externals = []
        for key, t in trace.external.items():
            if key not in owned:
                raise _RefusedError(
                    f"a tensor of shape {tuple(t.shape)} that neither the arguments, the "
                    "modules nor a guarded read gave the call"
                )
            layout = _layout(t)
            if layout is None:
                raise _RefusedError("a tensor read by the call holds no NumPy array")
            self.externals.append((t, layout))

    def unready(self, callee, arguments: list):
        """None if a replay of `callee` on `arguments` would do what running its Python would
        (See Note [Replay]), else why not: BUSY, CALL (another call: other arguments, another
        callee) or STATE (what the Python read changed: a new trace may replay again).
        Complete on its own: the cache's guards need not be checked."""
        if callee is not self.callee or len(arguments) != self.n_arguments:
            return CALL
        if self.owner is not None:
            node = self.owner()
            if node is not None and node._outputs is not None:
                return BUSY  # the last call's graph still waits for its backward
        ids = set()
        for i, layout in self.tensor_args:
            a = arguments[i]
            if not isinstance(a, Tensor) or _layout(a) != layout:
                return CALL
            ids.add(id(a))
        if len(ids) != len(self.tensor_args):
            return CALL
        for i, kind, value in self.values:
            a = arguments[i]
            if a is not value and (kind is _IDENTITY or type(a) is not kind or a != value):
                return CALL
        for t, layout in self.externals:
            if _layout(t) != layout or id(t) in ids:
                return STATE
        if (
            recording.observer is not None
            or recording.autocast is not None
            or saved_hooks.active
            or anomaly.state.enabled
            or grad_state.inference
            or grad_state.enabled != self.grad_mode
            or module_hooks.ANY_GLOBAL
        ):
            return CALL  # (the doctor, the profiler, a hook: this call runs its Python)
        if defaults.float is not self.default_float:
            return STATE
        if module_stores.epoch != self.epoch and not self._same_modules():
            return STATE
        return None if python_guards.check(self.py_guards) is None else STATE

    def _same_modules(self) -> bool:
        # Some module changed (See Note [Module state epoch]): those the call ran, compared in
        # full (a value rebound to an equal number or string is the same state)
        state = _values(self.module_dicts)
        then = self.module_state
        if len(state) != len(then) or not all(map(_same, state, then)):
            return False
        if any(self.hook_dicts):
            return False
        if self.epoch is not None:
            self.epoch = module_stores.epoch
        self.module_state = state
        return True

    # ---- the replay ------------------------------------------------------------------------
    def run(self, arguments: list):
        """The call's result, replayed; FAILED if it could not be (the caller then runs the
        Python, which raises eager's error if the data is at fault)."""
        if not self._lock.acquire(False):  # another thread replays it now: its arrays are busy
            return FAILED
        try:
            state = default_generator.get_state() if self.rng else None
            try:
                self.forward(arguments)
            except Exception:  # noqa: BLE001 - the Python, run next, raises eager's error
                if state is not None:
                    default_generator.set_state(state)
                return FAILED
            self.runs += 1
            graph = self.graph
            if graph is None:
                made = {id(t): new_tensor(t._data) for t in self.outputs}
            else:
                made = graph.attach(arguments, graph, self)
            return _fill(self.template, arguments, made)
        finally:
            self._lock.release()


def _run_step(step, arguments: list) -> None:
    """One step of a replay's forward that its generated code does not write out (See Note
    [Straight-line replay]): a source, an in-place write, a stash, attributes from the call..."""
    if type(step) is not OpStep:
        args = _fill(step.args, arguments) if step.fill else step.args
        kwargs = _fill(step.kwargs, arguments) if step.fill else step.kwargs
        out = step.fn(*args, **kwargs)
        step.out._data = out._data if isinstance(out, Tensor) else out
        return
    op = step.op
    args = step.args
    if step.fill_args:
        args = tuple(arguments[a.index] if type(a) is Arg else a for a in args)
    attrs = step.attrs
    if step.fill_attrs:
        attrs = _fill(attrs, arguments)
        if step.node is not None:
            step.node._attrs = attrs
    arrays = [a._data if isinstance(a, Tensor) else a for a in args]
    if op.promote is not None:
        arrays = op.promote(arrays, args)
    out = step.fwd(np, *arrays, **attrs)
    if op.stash:
        out, stash = out
        if step.node is not None:
            step.node._stash = stash
    if step.into is not None:
        _write(step.into, out)
        return
    for i, name, site in step.bumps:  # the inputs the row wrote (`mutates`)
        _count(args[i]._version_counter, name, site)
    outs = step.outs
    if op.n_outputs == 1:
        outs[0]._data = out if type(out) is _ndarray else np.asarray(out)
    else:
        for t, o in zip(outs, out):
            t._data = np.asarray(o)


def _layout(t):
    # what a replay needs of a tensor to be as traced: a NumPy array's exact shape, strides
    # and dtype, and requires_grad (None: not a NumPy array)
    d = t._data
    if type(d) is not _ndarray:
        return None
    return (d.shape, d.strides, d.dtype, t._requires_grad)


def _write(into: tuple, out) -> None:
    # an in-place step (See Note [In-place steps]): the result written into the tensor's
    # array and the write counted as `apply_inplace` counts it, with the traced call's line
    target, name, site, restart = into
    if saved_hooks.write_watchers:  # See Note [Writes into saved tensors]
        for watcher in saved_hooks.write_watchers:
            watcher(target)
    target._data[...] = out
    counter = target._version_counter
    if restart is not None:
        # a tensor the call made: a counter of its own from the traced version on (its old
        # counter keeps the trace's last version, which the nodes that saved it checked then,
        # and may be the last call's output's)
        counter = target._version_counter = VersionCounter()
        counter.value = restart
    _count(counter, name, site)


def _count(counter, name: str, site) -> None:
    # a write counted as `VersionCounter.bump` counts it, with the traced call's line
    counter.value += 1
    counter.last_op = name
    counter.last_site = site


FAILED = object()  # a replay that raised: the caller runs the Python instead
BUSY, CALL, STATE = "busy", "call", "state"  # why a program is not ready (`unready`)


def _draws_then_indexes(steps: list) -> bool:
    """Whether a step that reads integer tensors (an index, a target: it may refuse the data,
    as eager would) follows a random draw. Only then does a replay keep the generator's state
    (a costly copy) to put it back for the Python if the step fails (See `Program.run`)."""
    drawn = False
    for step in steps:
        if type(step) is not OpStep:
            drawn = True
        elif drawn and any(_integral(v) for v in (*step.args, *step.attrs.values())):
            return True
    return False


def _integral(value) -> bool:
    if isinstance(value, Tensor):
        return value._data.dtype.kind in "iub"
    if type(value) in (tuple, list):
        return any(_integral(v) for v in value)
    return type(value) is Arg or type(value) is ArrayOf  # (unknown until the call: assume so)


class _Graph:
    """The captured graph a replay's outputs hang from, reused by every replay."""

    def __init__(self, program: Program, trace, arguments: list, start_seq: int, name) -> None:
        outputs = [t for t in program.outputs if t._requires_grad]
        self.rooted = outputs
        self.roots = [gradient_edge(t) for t in outputs]
        edges, segment = boundary([fn for fn, _ in self.roots], start_seq)
        self.segment = segment
        self.order = newest_first(segment)
        self.members = frozenset(segment)
        # where each edge leaving the graph goes: an argument, or a tensor from before the call
        leaving = {}
        for i, a in enumerate(arguments):
            if isinstance(a, Tensor) and a._requires_grad:
                leaving[gradient_edge(a)] = Arg(i)
        for t, *_ in program.externals:
            if t._requires_grad:
                leaving[gradient_edge(t)] = t
        self.targets = []
        for edge in edges:
            if edge not in leaving:
                raise _RefusedError("the captured graph reaches a node made before the call")
            self.targets.append(leaving[edge])
        outside = {edge: i for i, edge in enumerate(edges)}
        self.plan = plan_of(self.order, self.roots, outside)  # (Note [Compiled backward])
        self._saved(trace)
        self._counters(trace, program, arguments)
        # (written once nothing refuses: See Note [Straight-line replay])
        self.backward, self.backward_source = replay_backward(name, self.plan, len(edges))
        # `attach(arguments, graph, program)`: the captured graph pointed at this replay's
        # arrays and counters; the outputs on a new node (a dict: id(traced output) -> output)
        self.attach, self.attach_source = replay_attach(name, self, program.outputs, ReplayBackward)

    def _saved(self, trace) -> None:
        self.saved = []  # (node, its saved dict at capture): restored on each replay
        self.arg_saved = []  # (saved dict, name, Arg): the argument of this call, saved
        for node in self.segment:
            if not isinstance(node, OpNode) or not node._plain or node._saved is None:
                raise _RefusedError(f"the captured node {type(node).__name__} is not an op's")
            saved = node._saved
            for name, value in saved.items():
                if type(value) is Packed:
                    raise _RefusedError("saved-tensor hooks were active")
                if isinstance(value, Tensor) and id(value) in trace.args:
                    self.arg_saved.append((saved, name, trace.args[id(value)]))
            self.saved.append((node, saved))

    def _counters(self, trace, program: Program, arguments: list) -> None:
        # Counter groups (See Note [Replay]): a made tensor shares its counter with the base it
        # views, and with a saved output of the same array; the group of a returned tensor
        # gets a new counter on each replay (the last call's outputs keep theirs), at the
        # version the trace ended with, so that the versions its nodes recorded hold as they
        # did (a saved output written in place later in the call raises at backward, as in
        # eager); the group of an argument or of a tensor from before the call is that
        # tensor's counter, whose versions the nodes record anew on each replay
        kinds = {}
        for i, a in enumerate(arguments):
            if isinstance(a, Tensor):
                kinds[id(a._version_counter)] = Arg(i)
        for t, *_ in program.externals:
            kinds[id(t._version_counter)] = t
        for t in program.outputs:
            kinds.setdefault(id(t._version_counter), None)  # None: a new one per replay
        groups: dict = {}  # id(counter) -> index
        self.groups = []  # (kind, [members])
        self.starts = []  # each group's version when the call was traced
        self.versions = []  # (versions dict, name, group index)
        self.output_arrays = []  # (saved output, the made tensor whose array it is)

        def group_of(counter):
            key = id(counter)
            if key not in kinds:
                return None  # inside the call only: never changes
            if key not in groups:
                groups[key] = len(self.groups)
                self.groups.append((kinds[key], []))
                self.starts.append(counter.value)  # (a new output's: the trace's version)
            return groups[key]

        for t in trace.made.values():
            g = group_of(t._version_counter)
            if g is not None:
                self.groups[g][1].append(t)
        # a saved tensor written in place later in the call: eager's backward raises, and a
        # replay re-reads the versions after its writes (See Note [In-place steps])
        written = {
            id(s.into[0]._version_counter)
            for s in program.steps
            if type(s) is OpStep and s.into is not None and s.into[3] is None
        }  # (not a made tensor's: its versions restart on each replay)
        for node, saved in self.saved:
            for name, value in saved.items():
                if type(value) is SavedOutput:
                    counter = value.version_counter
                    owner = trace.arrays.get(id(value.data))
                    if owner is None or type(owner) is Arg:
                        raise _RefusedError("a saved output of unknown origin")
                    self.output_arrays.append((value, owner))
                elif isinstance(value, Tensor):
                    counter = value._version_counter
                else:
                    continue
                if id(counter) in written:
                    raise _RefusedError("a tensor saved for backward is written in place later")
                g = group_of(counter)
                if g is None:
                    continue
                if type(value) is SavedOutput:
                    self.groups[g][1].append(value)
                if self.groups[g][0] is not None:
                    self.versions.append((node._versions, name, g))
        self.output_group = {id(t): groups.get(id(t._version_counter)) for t in program.outputs}


class ReplayBackward(CompiledFunctionBackward):
    """The node of a replayed call: the captured graph, reused, run as one program."""

    def __init__(self, graph: _Graph, edges: tuple) -> None:
        super().__init__(graph.rooted, edges, graph.segment, graph.roots)
        self._graph = graph

    def _order_and_plan(self) -> tuple:
        return self._graph.order, self._graph.plan  # planned when the call was traced

    def _releases(self) -> bool:
        return False  # the nodes are the program's, refilled by the next replay

    def _members(self, order: list):
        return self._graph.members

    def _run(self, plan: tuple, grads: tuple, release: bool) -> tuple:
        return self._graph.backward(grads)  # See Note [Straight-line replay]


# PyTorch's name: a replayed call's node is the same kind of node as a traced call's
ReplayBackward.__name__ = ReplayBackward.__qualname__ = "CompiledFunctionBackward"


def _template(result, trace) -> tuple:
    outputs: list = []

    def walk(value):
        if isinstance(value, Tensor):
            if id(value) in trace.made:
                if all(value is not o for o in outputs):
                    outputs.append(value)
                return _Out(value)
            if id(value) in trace.args:
                return trace.args[id(value)]
            raise _RefusedError("the call returns a tensor it did not make by an op")
        if type(value) in (tuple, list):
            return type(value)(walk(v) for v in value)
        if type(value) is dict:
            return {k: walk(v) for k, v in value.items()}
        if isinstance(value, _SCALARS) or python_guards.immutable(value):
            return value
        raise _RefusedError(f"the call returns a {type(value).__name__}")

    return walk(result), outputs


class _Out:
    """Where the template returns a made tensor (its replay's output tensor)."""

    __slots__ = ("tensor",)

    def __init__(self, tensor) -> None:
        self.tensor = tensor


def _fill(value, arguments: list, made: dict | None = None):
    # a template with this replay's values: arguments, arrays, outputs
    kind = type(value)
    if kind is Arg:
        return arguments[value.index]
    if kind is ArrayOf:
        of = value.of
        return (arguments[of.index] if type(of) is Arg else of)._data
    if kind is _Out:
        return made[id(value.tensor)]
    if kind is tuple or kind is list:
        return kind(_fill(v, arguments, made) for v in value)
    if kind is dict:
        return {k: _fill(v, arguments, made) for k, v in value.items()}
    return value


def _values(dicts: list) -> tuple:
    return tuple(chain.from_iterable(map(dict.values, dicts)))


def _has_hooks(m) -> bool:
    return any(getattr(m, name) for name in _HOOKS)


def _same(a, b) -> bool:
    # a value rebound to an equal number or string is the same state
    return a is b or (type(a) is type(b) and isinstance(a, _SCALARS) and a == b)
