"""A replay's forward, backward and attach, each one generated function of straight-line code.

# Note [Straight-line replay]
# A replay runs the traced steps in the traced order, on arrays of the traced shapes and
# dtypes (Note [Replay]). A loop over the steps would decide again on every call what is
# the same on every call: where each argument comes from, whether an op's inputs need
# promoting, how many outputs it has. Those decisions are taken once, when the program is
# built, and what is left is written out as one Python function with a line or two per op:
#
#     def replay_forward(arguments):
#         r = F1(np, T1_0._data, arguments[0]._data, T1_2._data, beta=K1_beta, ...)  # addmm
#         O1._data = r if type(r) is _ndarray else _asarray(r)
#         ...
#
# (F1 is the row's forward, T1_0 the tensor of an earlier step or from before the call, O1
# the tensor the step made in the trace, whose array each replay replaces.)
#
# The same is done for the backward (the plan of Note [Compiled backward] written out, each
# node's gradient slots local variables, a slot that one route alone feeds taking it
# without a test) and for `attach`, which points the reused nodes at a call's arrays and
# version counters.
#
# In the forward, a step with rarer needs (a source such as dropout's noise, an in-place
# write, a stash for its node, attributes filled from the call, inputs that promotion
# changes) is a call of `run_step`, the one implementation of those. Promotion is decided by
# calling the op's own `promote` on the traced arrays: its answer depends only on the dtypes
# and dimensions, which every replay shares. The source is kept (`source`, and in
# linecache under the file name `<replay of NAME #N>`) so that a traceback through a
# replay, or a reader, can see what runs (`replay_status(...).source`).
"""

from __future__ import annotations

import itertools
import keyword
import linecache
import os
import weakref

import numpy as np

from .._tensor import Tensor, VersionCounter, new_tensor
from ..autograd.engine import wrong_count
from ..autograd.graph_task import sum_arrays
from ..graph.saved import SavedOutput
from ..ops.table import record as recording
from ..ops.table.record import gradient_edge
from .compiled_node import array_of, tensor_of
from .trace import Arg, OpStep

__all__ = ["replay_forward", "replay_backward", "replay_attach"]

_ndarray = np.ndarray
_numbers = itertools.count(1)  # (each program's source under a file name of its own)


def replay_forward(name: str, steps: list, aliases: list, arguments: list, run_step):
    """The generated forward of a replay of `name` (called with the call's flat arguments);
    `run_step(step, arguments)` runs the steps it does not write out."""
    namespace = {"np": np, "_ndarray": _ndarray, "_asarray": np.asarray, "run_step": run_step}
    lines = ["def replay_forward(arguments):"]
    for i, step in enumerate(steps):
        if not _inline(step, arguments):
            namespace[f"S{i}"] = step
            lines.append(f"    run_step(S{i}, arguments)  # {_label(step)}")
            continue
        namespace[f"F{i}"] = step.fwd
        parts = []
        for j, a in enumerate(step.args):
            if type(a) is Arg:
                parts.append(
                    f"arguments[{a.index}]._data"
                    if isinstance(arguments[a.index], Tensor)
                    else f"arguments[{a.index}]"
                )
            else:
                namespace[f"T{i}_{j}"] = a
                parts.append(f"T{i}_{j}._data" if isinstance(a, Tensor) else f"T{i}_{j}")
        for key, value in step.attrs.items():
            namespace[f"K{i}_{key}"] = value
            parts.append(f"{key}=K{i}_{key}")
        lines.append(f"    r = F{i}(np, {', '.join(parts)})  # {step.op.name}")
        if step.op.n_outputs == 1:
            namespace[f"O{i}"] = step.outs[0]
            lines.append(f"    O{i}._data = r if type(r) is _ndarray else _asarray(r)")
            continue
        for k, out in enumerate(step.outs):  # (split, unbind, ...)
            namespace[f"O{i}_{k}"] = out
            lines.append(f"    O{i}_{k}._data = _asarray(r[{k}])")
    for k, (alias, owner) in enumerate(aliases):
        namespace[f"A{k}"], namespace[f"B{k}"] = alias, owner
        lines.append(f"    A{k}._data = B{k}._data")
    source = "\n".join([*lines, "    return None", ""])
    return _defined("replay_forward", source, name, namespace), source


def _defined(function: str, source: str, name: str, namespace: dict):
    # compiled now, not through ops/table/generated.py: a program is dropped with its entry,
    # and that module's tables, keyed by code ids, are for functions that live for good. The
    # file is named in dyngrad's folder (frames there are not the user's: argument errors and
    # warnings look past them) and its lines kept in linecache, for tracebacks
    filename = os.path.join(os.path.dirname(__file__), f"<replay of {name} #{next(_numbers)}>")
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102
    defined = namespace[function]
    weakref.finalize(defined, linecache.cache.pop, filename, None)
    return defined


def _inline(step, arguments: list) -> bool:
    # whether the step is an op with nothing but its row forward to run
    if type(step) is not OpStep:
        return False
    op = step.op
    if step.fill_attrs or op.stash or step.into is not None or step.bumps:
        return False
    if not all(k.isidentifier() and not keyword.iskeyword(k) for k in step.attrs):
        return False
    if op.promote is None:
        return True
    args = [arguments[a.index] if type(a) is Arg else a for a in step.args]
    arrays = [a._data if isinstance(a, Tensor) else a for a in args]
    try:
        promoted = op.promote(arrays, args)
    except Exception:  # noqa: BLE001 - (then the step runner decides on each call)
        return False
    return len(promoted) == len(arrays) and all(p is a for p, a in zip(promoted, arrays))


def _label(step) -> str:
    return step.op.name if type(step) is OpStep else getattr(step.fn, "__name__", "source")


def replay_backward(name: str, plan: tuple, n_outside: int):
    """`run_plan(plan, grads, n_outside, release=False)` (compiled_node.py) as one generated
    function of `grads` for the plan of a replay's graph (which keeps its nodes): each node's
    gradient slots are locals, its routes are written out (See Note [Straight-line replay])."""
    steps, root_slots = plan
    namespace = {
        "_sum": sum_arrays,
        "_tensor_of": tensor_of,
        "_on_tensors": _on_tensors,
        "_recording": recording,
    }
    slots = [f"b{i}_{nr}" for i, (node, *_) in enumerate(steps) for nr in range(node._n_outputs)]
    results = [f"r{k}" for k in range(n_outside)]
    lines = [
        "def replay_backward(grads):",
        "    owned = set()  # See Note [Gradient buffer ownership]",
        "    seen = {}",
        "    on_arrays = _recording.observer is None or not _recording.observe_backward",
        *(f"    {name} = None" for name in (*slots, *results)),
    ]
    # how many deliveries each slot can get: one alone needs no sum
    arrivals: dict = {}
    for i, nr, _ in root_slots:
        arrivals[f"b{i}_{nr}"] = arrivals.get(f"b{i}_{nr}", 0) + 1
    for _node, _runner, _single, routes in steps:
        for j, nr, _ in filter(None, routes):
            target = f"r{-1 - j}" if j < 0 else f"b{j}_{nr}"
            arrivals[target] = arrivals.get(target, 0) + 1

    roots = set()
    for k, (i, nr, _) in enumerate(root_slots):
        roots.add(i)
        lines += [
            f"    g = grads[{k}]",
            "    if g is not None:",
            "        d = g._data",
            "        seen[id(d)] = g",
            f"        b{i}_{nr} = d"
            if arrivals[f"b{i}_{nr}"] == 1
            else f"        b{i}_{nr} = d if b{i}_{nr} is None else _sum(b{i}_{nr}, d, owned)",
        ]
    for i, (node, runner, single, routes) in enumerate(steps):
        namespace[f"N{i}"] = node
        mine = [f"b{i}_{nr}" for nr in range(node._n_outputs)]
        buffer = mine[0] if single else f"({', '.join(mine)},)"
        none = " and ".join(f"{s} is None" for s in mine)
        lines.append(f"    # {type(node).__name__}")
        pad = "    "
        if i not in roots:  # reached only if a gradient arrived (run_plan's buffer)
            lines.append(f"    if not ({none}):")
            pad = "        "
        lines += [f"{pad}if owned:", *(f"{pad}    owned.discard(id({s}))" for s in mine)]
        call = [f"out = _on_tensors(N{i}, ({', '.join(mine)},), seen)"]
        if runner is not None:
            namespace[f"R{i}"] = runner
            call = [
                f"out = R{i}(N{i}, {buffer}) if on_arrays and N{i}._saved is not None else None",
                "if out is None:",
                f"    {call[0]}",
            ]
        if i in roots:  # all its gradients None: the engine's rule (else one arrived)
            lines += [f"{pad}out = None", f"{pad}if not ({none} and N{i}._needs_grads):"]
            lines += (f"{pad}    {c}" for c in call)
        else:
            lines += (f"{pad}{c}" for c in call)
        delivered = [(k, route) for k, route in enumerate(routes) if route is not None]
        if delivered:
            lines.append(f"{pad}if out:")
        for k, (j, nr, _) in delivered:
            target = f"r{-1 - j}" if j < 0 else f"b{j}_{nr}"
            if arrivals[target] == 1:  # (None or not: the slot held None until now)
                lines.append(f"{pad}    {target} = out[{k}]")
                continue
            lines += [
                f"{pad}    g = out[{k}]",
                f"{pad}    if g is not None:",
                f"{pad}        {target} = g if {target} is None else _sum({target}, g, owned)",
            ]
    lines.append(f"    return ({''.join(f'_tensor_of({r}, seen), ' for r in results)})")
    source = "\n".join([*lines, ""])
    return _defined("replay_backward", source, name, namespace), source


def _on_tensors(node, buffer: tuple, seen: dict) -> list:
    # a node without an array runner (or whose runner declined): its own apply, on tensors
    outputs = node.apply(tuple(tensor_of(g, seen) for g in buffer))
    if len(outputs) != len(node.next_functions):
        wrong_count(node, outputs)
    return [array_of(t, seen) for t in outputs]


def replay_attach(name: str, graph, outputs: list, node_class):
    """`attach(arguments, graph, program)` for a replay's graph (replay.py's `_Graph`), written
    out: the captured nodes pointed at this call's arrays and version counters, and the
    call's outputs on a new `CompiledFunctionBackward` (See Note [Straight-line replay])."""
    namespace = {
        "_VersionCounter": VersionCounter,
        "_edge": gradient_edge,
        "_new_tensor": new_tensor,
        "_weakref": weakref.ref,
        "_node_of": node_class,
    }
    lines = ["def replay_attach(arguments, graph, program):"]
    names: dict = {}  # id(object) -> its name in the namespace

    def named(prefix: str, obj) -> str:
        key = names.get(id(obj))
        if key is None:
            key = names[id(obj)] = f"{prefix}{len(names)}"
            namespace[key] = obj
        return key

    for node, saved in graph.saved:
        lines.append(f"    {named('N', node)}._saved = {named('D', saved)}")
    for saved, key, arg in graph.arg_saved:
        lines.append(f"    {named('D', saved)}[{key!r}] = arguments[{arg.index}]")
    for value, owner in graph.output_arrays:
        v = named("V", value)
        lines.append(f"    {v}.data = {named('T', owner)}._data")
        lines.append(f"    {v}._tensor = None  # (a formula's tensor of the last call's array)")
    for g, ((kind, members), start) in enumerate(zip(graph.groups, graph.starts)):
        if kind is None:
            lines.append(f"    c{g} = _VersionCounter()")
            if start:
                lines.append(f"    c{g}.value = {start!r}")
        elif type(kind) is Arg:
            lines.append(f"    c{g} = arguments[{kind.index}]._version_counter")
        else:
            lines.append(f"    c{g} = {named('T', kind)}._version_counter")
        for m in members:
            field = "version_counter" if type(m) is SavedOutput else "_version_counter"
            lines.append(f"    {named('M', m)}.{field} = c{g}")
    for versions, key, g in graph.versions:
        lines.append(f"    {named('Q', versions)}[{key!r}] = c{g}.value")
    edges = "".join(
        f"_edge(arguments[{t.index}]), " if type(t) is Arg else f"_edge({named('T', t)}), "
        for t in graph.targets
    )
    lines.append(f"    node = _node_of(graph, ({edges}))")
    lines.append("    program.owner = _weakref(node)")
    made = []
    nr = 0
    for k, t in enumerate(outputs):
        data = f"{named('T', t)}._data"
        if t._requires_grad:
            lines.append(f"    o{k} = _new_tensor({data}, True, node, {nr})")
            nr += 1
        else:
            lines.append(f"    o{k} = _new_tensor({data})")
        g = graph.output_group[id(t)]
        if g is not None:
            lines.append(f"    o{k}._version_counter = c{g}")
        made.append(f"{id(t)}: o{k}")
    lines.append(f"    return {{{', '.join(made)}}}")
    source = "\n".join([*lines, ""])
    return _defined("replay_attach", source, name, namespace), source
