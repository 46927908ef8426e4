"""The fast forms' source, written from one template per kind (unary, binary) and op row.

# Note [Generated fast forms]
# A fast form (See Note [Hot path]) does what `apply` does for its common case, and what it
# records must be what `record` records (See Note [One recording path]). Calling `new_tensor`
# and `record` from it cost ~2,200 instructions a call (two Python calls, and `record`'s tests
# of what kind of call it is; `x + y` with grad is ~19,000 in all). So, as PyTorch generates its
# VariableType kernels from one template, each fast form is written here as straight-line
# source for its row: the template below, with
#   - `new_tensor`'s body inlined (read from `new_tensor` itself, so there is still one
#     place that says how an output tensor is built; where its source can't be read, the
#     form calls it instead);
#   - `record`'s steps specialized to the row's save plan for each mask of inputs that
#     require grad (edges, shapes and dtypes, attributes, anomaly trace, saved values and
#     their versions, the saved-tensor hooks), in the order `record` takes them.
# Rows whose source differs only in name share one source (seven in all). Compiling them took
# a twentieth of `import dyngrad`, so `fast_compiled.py` holds them, written out by this module
# (`python -m dyngrad.ops.table.fast_codegen > src/dyngrad/ops/table/fast_compiled.py`), and
# Python caches its bytecode as for any module. A source is still written from the template
# as dyngrad loads, and only a cached one equal to it, character for character, is used: an
# out-of-date cache costs a compile, never a wrong form (tests/ops/test_fast_forms.py fails
# until it is written again). Not compiled at first call as Note [Generated functions] does:
# a Tensor method's copy of a first-call trampoline would stay one. Each row gets a copy
# of its code named after it (`mul`, in a file `<fast form of torch.mul>` inside the package,
# in linecache), so profilers, tracebacks and the anomaly trace's package filter see it as a
# dyngrad frame named for its op.
# `source_of("mul")` returns a form's source. tests/ops/test_fast_forms.py checks that a
# fast form and `apply` record the same node (name, edges, shapes, saved values, versions,
# anomaly trace) for every fast form and every mask.
"""

from __future__ import annotations

import ast
import builtins
import functools
import linecache
import os
import sys
import types

import numpy as np

from ..._tensor import Tensor, VersionCounter, new_tensor
from ...graph import anomaly_mode as anomaly
from ...graph import saved_hooks
from ...graph.grad_mode import state as grad_state
from ...graph.node import _sequence, grad_accumulator
from ...graph.saved import SAVES_OUTPUT, SavedOutput
from ...runtime.sparse_coo import SparseCOO
from . import fast_compiled
from . import record as recording
from .errors import translate
from .record import apply, gradient_edge, note_no_grad, pack_saved, save

__all__ = ["FORMS", "fast_form", "source_of"]


def _not_a_tensor(op, x) -> TypeError:
    """PyTorch's error for a one-input op called on what is not a tensor (`torch.exp(1.0)`)."""
    return TypeError(
        f"{op.name}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}"
    )


# what the generated code reads, besides the row's own `op`, `fwd`, `node_cls`
_NAMESPACE = {
    "__builtins__": builtins,
    "__name__": __name__,  # a dyngrad frame to whoever walks the stack (argument errors)
    "np": np,
    "_ndarray": np.ndarray,
    "_new": object.__new__,
    "_EMPTY": {},
    "_NO_EDGE": (None, 0),
    "_ERRORS": (ValueError, IndexError, TypeError, MemoryError),
    "_next_seq": _sequence.__next__,
    "_hooks_active": saved_hooks.active,
    "Tensor": Tensor,
    "SavedOutput": SavedOutput,
    "SparseCOO": SparseCOO,
    "VersionCounter": VersionCounter,
    "anomaly": anomaly,
    "apply": apply,
    "gradient_edge": gradient_edge,
    "grad_accumulator": grad_accumulator,
    "grad_state": grad_state,
    "new_tensor": new_tensor,
    "note_no_grad": note_no_grad,
    "_not_a_tensor": _not_a_tensor,
    "pack_saved": pack_saved,
    "save": save,
    "recording": recording,
    "translate": translate,
}
FORMS: dict = {}  # op name -> (its fast form, the row, "unary" or "binary")
_SOURCES: dict = {}  # op name -> its fast form's source
_CODES: dict = {}  # what a source depends on -> (the source, named `fast_form`; its code)

UNARY = """\
def {name}(x):
    if recording.autocast is not None:  # amp hook: See Note [Autocast hook]
        return apply(op, (x,))
    try:
        xd = x._data
    except AttributeError:
        raise _not_a_tensor(op, x) from None
    # integer and bool tensors take the general path: their promotion rules differ
    if type(xd) is not _ndarray or xd.dtype.kind != "f":
        return apply(op, (x,))
    out = fwd(np, xd)
    if type(out) is not _ndarray:
        out = np.array(out)  # a NumPy scalar from a full reduction
{record}
    if recording.observer is not None:  # See Note [Op observer]
        recording.observer(op, (x,), _EMPTY, t)
    return t
"""

BINARY = """\
def {name}(x, y):
    if recording.autocast is not None:  # amp hook: See Note [Autocast hook]
        return apply(op, (x, y))
    xd = x._data
    # integer and bool tensors take the general path: their promotion rules differ
    if type(xd) is not _ndarray or xd.dtype.kind != "f":
        return apply(op, (x, y))
    if isinstance(y, Tensor):
        yd = y._data
        if xd.dtype != yd.dtype:
            return apply(op, (x, y))
{tensor_mask}
    elif type(y) is float or type(y) is int:
        yd = y  # so `yd is y` says that y is a number
        mask = x._requires_grad
    else:
        return apply(op, (x, y))
    try:
        out = fwd(np, xd, yd)
    except _ERRORS as exc:
        raise translate(op, (x, y), _EMPTY, exc) from None
    # dense * sparse is sparse: See Note [Sparse COO arrays]
    if type(out) is not _ndarray and type(out) is not SparseCOO:
        out = np.asarray(out)
{record}
    if recording.observer is not None:  # See Note [Op observer]
        recording.observer(op, (x, y), _EMPTY, t)
    return t
"""

# `record(node, inputs, mask, _EMPTY, plans[mask], t)`, its steps in its order
RECORD = """\
    if {mask} and grad_state.enabled:
        node = _new(node_cls)
{new_tensor_node}
        node._seq = _next_seq()
{masks}
    else:
{new_tensor_plain}
        if {mask}:  # grad mode is off
            note_no_grad(t, {inputs})"""

RECORD_MASK = """\
{edges}
{meta}
        node._attrs = _EMPTY
        if anomaly.state.enabled:
            anomaly.record(node)
{saves}"""


def fast_form(op, kind: str):
    """The fast form of `op` (`kind` "unary" or "binary"), named after it."""
    function, source = _function(op, kind)
    filename = function.__code__.co_filename
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    _SOURCES[op.name] = source
    FORMS[op.name] = (function, op, kind)
    return function


def _function(op, kind: str) -> tuple:
    """(the fast form of `op`, its source)."""
    name = op.name
    source, code = _compiled(op, kind)
    filename = os.path.join(os.path.dirname(__file__), f"<fast form of torch.{name}>")
    # line 1 is the `def` line in the source linecache holds, wherever the code was compiled
    code = code.replace(co_name=name, co_qualname=name, co_filename=filename, co_firstlineno=1)
    namespace = dict(_NAMESPACE, op=op, fwd=op.fwd, node_cls=op.node_class())
    namespace.update(_inlined()[1])
    source = source.replace("def fast_form(", f"def {name}(", 1)
    return types.FunctionType(code, namespace, name), source


def _compiled(op, kind: str) -> tuple:
    """(the source of `op`'s fast form, named `fast_form`, and its code), made once for all
    rows alike: of one kind, differentiable or not, with the same save plans."""
    masks = _masks(op, kind)
    plans = tuple(op.plans[mask] for mask in masks)
    key = (kind, not op.records, op.n_outputs, plans, plans[0] is SAVES_OUTPUT, op.edges)
    found = _CODES.get(key)
    if found is None:
        source = _source(op, kind, "fast_form")
        code = fast_compiled.CODES.get(source)
        if code is None:  # not written out yet (Note [Generated fast forms])
            namespace = {}
            exec(compile(source, f"<fast form {len(_CODES)}>", "exec"), namespace)  # noqa: S102
            code = namespace["fast_form"].__code__
        found = _CODES[key] = (source, code)
    return found


def cached_module() -> str:
    """The text of `fast_compiled.py`: every fast form's source, as a string and as code."""
    lines = [
        '"""The fast forms, compiled by Python\'s own bytecode cache (Note [Generated fast forms]',
        "in fast_codegen.py). Written by `python -m dyngrad.ops.table.fast_codegen`: do not edit.",
        '"""',
        "",
        "CODES = {}  # a fast form's source -> its code",
    ]
    for source, _ in _CODES.values():
        lines += ["", "", f"SOURCE = {source!r}", "", "", source.rstrip("\n"), "", ""]
        lines += ["CODES[SOURCE] = fast_form.__code__"]
    return "\n".join(lines) + "\n"


def source_of(name: str) -> str:
    """The source of the fast form of the op row `name` (`source_of("mul")`)."""
    return _SOURCES[name]


def _source(op, kind: str, name: str) -> str:
    assert not op.stash, "a stash=True row takes the general path"
    inputs = ("x",) if kind == "unary" else ("x", "y")
    masks = _masks(op, kind)
    template = UNARY if kind == "unary" else BINARY
    mask = "x._requires_grad" if kind == "unary" else "mask"  # whether any input requires grad
    if not op.records:  # nothing to record: only the no-grad note
        record = _indent(_new_tensor("False", "None"), 4) + f"\n    if {mask}:  # grad mode is off"
        record += f"\n        note_no_grad(t, {_tuple(inputs)})"
        return template.format(name=name, record=record, tensor_mask=_tensor_mask(op))
    branches = [_branch(op, inputs, bits) for bits in masks]
    if len(masks) > 1:  # `if mask == 3: ... elif mask == 1: ... else: ...`
        tests = ["if mask == 3", "elif mask == 1", "else"]
        branches = [
            f"        {test}:  # {_says(inputs, bits)}\n" + _indent(branch, 4)
            for test, bits, branch in zip(tests, masks, branches)
        ]
    record = RECORD.format(
        mask=mask,
        new_tensor_node=_indent(_new_tensor("True", "node"), 8),
        new_tensor_plain=_indent(_new_tensor("False", "None"), 8),
        masks="\n".join(branches),
        inputs=_tuple(inputs),
    )
    return template.format(name=name, record=record, tensor_mask=_tensor_mask(op))


def _masks(op, kind: str) -> tuple:
    """The masks of inputs that require grad a form records for (one or both of x and y)."""
    if kind == "unary" or op.edge_mask == 1:  # y has no edge: rsub_scalar's number
        return (1,)
    return (3, 1, 2)


def _tensor_mask(op) -> str:
    # `record`'s mask of the inputs that require grad (no `|` or `<<`: not fast on bools), of
    # those that have edges: See Note [Edges are differentiable inputs]
    if op.edge_mask == 1:
        return "        mask = x._requires_grad  # y has no edge"
    return (
        "        # `record`'s mask of the inputs that require grad (no `|` or `<<`: not fast on "
        "bools)\n"
        "        if y._requires_grad:\n"
        "            mask = 3 if x._requires_grad else 2\n"
        "        else:\n"
        "            mask = x._requires_grad"
    )


def _branch(op, inputs, mask: int) -> str:
    """What `record` does for `mask`, the inputs that require grad."""
    return RECORD_MASK.format(
        edges=_edges(op, inputs, mask), meta=_meta(inputs, mask), saves=_saves(op, inputs, mask)
    )


def _says(inputs, mask: int) -> str:
    grads = [v for i, v in enumerate(inputs) if mask >> i & 1]
    return (
        " and ".join(grads) + " require grad"
        if len(grads) > 1
        else f"only {grads[0]} requires grad"
    )


def _tuple(names) -> str:
    return f"({names[0]},)" if len(names) == 1 else f"({', '.join(names)})"


def _indent(text: str, spaces: int) -> str:
    return "\n".join(" " * spaces + line if line else line for line in text.splitlines())


def _edges(op, inputs, mask: int) -> str:
    # See `record`: an input with history and no base links to its node directly, a leaf to
    # its AccumulateGrad (Note [Leaf edges] in record.py); an input
    # without a formula has no edge (Note [Edges are differentiable inputs])
    lines, edges = [], []
    for i, v in enumerate(inputs):
        if type(op.edges) is tuple and i not in op.edges:
            continue
        if not mask >> i & 1:
            edges.append("_NO_EDGE")
            continue
        edge = f"e{v}"
        lines.append(f"        fn = {v}._grad_fn")
        lines.append(f"        if {v}._base is not None:")
        lines.append(f"            {edge} = gradient_edge({v})")
        lines.append("        elif fn is not None:")
        lines.append(f"            {edge} = (fn, {v}._out_nr)")
        lines.append("        else:  # a leaf")
        lines.append(f"            {edge} = ({v}._accum or grad_accumulator({v}), 0)")
        edges.append(edge)
    lines.append(f"        node.next_functions = {_tuple(edges)}")
    return "\n".join(lines)


def _meta(inputs, mask: int) -> str:
    meta = [f"({v}d.shape, {v}d.dtype)" if mask >> i & 1 else "None" for i, v in enumerate(inputs)]
    return f"        node._meta = {_tuple(meta)}"


def _saves(op, inputs, mask: int) -> str:
    plan = op.plans[mask]
    if not plan:
        return "        node._saved = node._versions = _EMPTY"
    if plan is SAVES_OUTPUT and op.n_outputs == 1:  # relu, exp, tanh...: the output
        lines = [
            "        saved = _new(SavedOutput)  # See Note [Graph ownership]: not the tensor",
            "        saved.data = out",
            "        saved.version_counter = counter = t._version_counter",
            "        saved.output_nr = 0",
            "        saved._tensor = None",
            '        node._saved = {"out": saved}',
            '        node._versions = {"out": counter.value}',
        ]
    elif all(index >= 0 for _, index in plan):  # mul, div, matmul...: inputs only
        saved = ", ".join(f'"{key}": {inputs[index]}' for key, index in plan)
        lines = [f"        node._saved = {{{saved}}}"]
        # an input that does not require grad may be a number (`y` when `yd is y`)
        numbers = {index for _, index in plan if index > 0 and not mask >> index & 1}
        if not numbers:
            versions = ", ".join(
                f'"{key}": {inputs[index]}._version_counter.value' for key, index in plan
            )
            lines.append(f"        node._versions = {{{versions}}}")
        else:
            lines.append("        versions = node._versions = {}")
            for key, index in plan:
                v = inputs[index]
                line = f'        versions["{key}"] = {v}._version_counter.value'
                if index in numbers:
                    lines += [f"        if {v}d is not {v}:", "    " + line]
                else:
                    lines.append(line)
    else:  # anything else: `record`'s own saving, which packs for the hooks itself
        return f"        save(node, op.plans[{mask}], {_tuple(inputs)}, t)"
    lines.append("        if _hooks_active:  # See Note [Saved tensor hooks]")
    lines.append("            pack_saved(node, t)")
    return "\n".join(lines)


def _new_tensor(requires_grad: str, grad_fn: str) -> str:
    """`t = new_tensor(out, requires_grad, grad_fn)`: `new_tensor`'s body, inlined."""
    body = _inlined()[0]
    if body is None:
        return f"t = new_tensor(out, {requires_grad}, {grad_fn})"
    values = {"data": "out", "requires_grad": requires_grad, "grad_fn": grad_fn, "output_nr": "0"}
    return f"# new_tensor(out, {requires_grad}, {grad_fn})\n" + body.format(**values)


@functools.cache
def _inlined() -> tuple:
    """(new_tensor's body as a template of its parameters, the globals it reads), read once
    from its source; (None, {}) when the source can't be read or is not of the shape inlined
    here (no return but the last, `return <the new tensor>`, and no other local)."""
    code = new_tensor.__code__
    lines = linecache.getlines(code.co_filename)[code.co_firstlineno - 1 :]
    end = next((i for i, line in enumerate(lines[1:], 1) if line[:1] not in " \n"), len(lines))
    try:  # a module-level function: it ends where the next unindented line starts
        tree = ast.parse("".join(lines[:end]))
    except SyntaxError:
        return None, {}
    if not tree.body or not isinstance(tree.body[0], ast.FunctionDef):
        return None, {}
    function = tree.body[0]
    body = function.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    last = body[-1] if body else None
    if not isinstance(last, ast.Return) or not isinstance(last.value, ast.Name):
        return None, {}
    body = body[:-1]
    if any(
        isinstance(n, (ast.Return, ast.Yield, ast.FunctionDef)) for s in body for n in ast.walk(s)
    ):
        return None, {}
    parameters = {a.arg for a in function.args.args}
    renames = {last.value.id: "t"}
    reads = set()
    for node in ast.walk(ast.Module(body=body, type_ignores=[])):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Store) and node.id not in renames:
                return None, {}  # a local of its own might clash with the template's
            if node.id in parameters:
                node.id = "{" + node.id + "}"
            elif node.id in renames:
                node.id = renames[node.id]
            elif isinstance(node.ctx, ast.Load):
                reads.add(node.id)
    text = "\n".join(ast.unparse(s) for s in body)
    text = text.replace("{", "{{").replace("}", "}}")
    for p in parameters:
        text = text.replace("{{" + p + "}}", "{" + p + "}")
    globals_ = new_tensor.__globals__
    found = {name: globals_[name] for name in reads if name in globals_}
    if any(name in _NAMESPACE and _NAMESPACE[name] is not value for name, value in found.items()):
        return None, {}  # a name that would mean something else in the generated code
    if reads - found.keys() - set(dir(builtins)):
        return None, {}
    return text, found


if __name__ == "__main__":  # the package loaded the forms under the module's own name
    print(sys.modules["dyngrad.ops.table.fast_codegen"].cached_module(), end="")
