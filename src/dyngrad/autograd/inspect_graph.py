"""Reading a backward graph: its nodes, their output shapes, what each saved and its bytes.

# Note [Saved bytes]
# Memory held by a graph is the memory of the arrays its nodes saved. An array is counted
# once however many nodes saved it, and a saved view counts the whole buffer it looks into
# (that buffer stays alive as long as the view does). Per node, each buffer is charged to the
# earliest node that saved it, so per-node and per-module figures add up to the total. A value
# saved through saved-tensor hooks counts what the packed object holds (a tensor moved
# elsewhere, a copy; a checkpoint's holder keeps the region's inputs), never what unpacking
# would give back: a checkpointed region shows what it really keeps.
"""

from __future__ import annotations

from ..graph.node import AccumulateGrad
from ..graph.saved import TORCH_SAVED_NAMES, SavedOutput
from ..graph.saved_hooks import Packed
from ..ops.table.record import gradient_edge
from ..ops.table.views import CopySlices
from ..runtime.dtypes import dtype as _dtype
from ..runtime.dtypes import from_numpy_dtype
from . import scope

__all__ = [
    "roots_of",
    "walk",
    "captured_graph",
    "output_meta",
    "saved_values",
    "buffer_of",
    "held_tensors",
    "saved_bytes",
    "annotate_modules",
    "format_bytes",
]

# dyngrad's formula names -> the names PyTorch gives saved values (`_saved_self`, ...)


def roots_of(target) -> list:
    """The (node, output_nr, tensor) roots of a tensor, a node, or a sequence of them."""
    items = target if isinstance(target, (tuple, list)) else (target,)
    roots = []
    for item in items:
        if hasattr(item, "_data"):  # a Tensor
            fn = item.grad_fn
            if fn is None and item._requires_grad:
                fn = gradient_edge(item)[0]
            roots.append((fn, item._out_nr if item._grad_fn is not None else 0, item))
        else:
            roots.append((item, 0, None))
    return roots


def walk(nodes) -> list:
    """Every node under `nodes`, each once, parents before children (depth first)."""
    order, seen = [], set()
    stack = [n for n in reversed(list(nodes)) if n is not None]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        order.append(node)
        stack.extend(child for child, _ in reversed(node.next_functions) if child is not None)
    return order


def captured_graph(node) -> list:
    """The nodes a compiled call's `CompiledFunctionBackward` holds (its `captured` outputs'
    graph, down to where it meets the node's own edges), parents before children; [] for any
    other node."""
    captured = getattr(node, "captured", None)
    if not captured:
        return []
    outside = {child for child, _ in node.next_functions}
    found: dict = {}
    stack = [n for n in reversed(captured) if n is not None]
    while stack:
        current = stack.pop()
        if current in found or current in outside or type(current) is AccumulateGrad:
            continue
        found[current] = None
        stack.extend(c for c, _ in reversed(current.next_functions) if c is not None)
    return list(found)


def _as_dtype(dt):
    return dt if isinstance(dt, _dtype) else from_numpy_dtype(dt)


def edge_meta(node) -> tuple:
    """(shape, dtype) of what flows along each of a node's `next_functions` (None if unknown).

    That is the forward input the edge came from, i.e. the child node's output.
    """
    if hasattr(node, "_input_meta"):  # a custom Function: metadata of every argument
        metas = [m for m in node._input_meta if m is not None]
        return tuple(metas) + (None,) * (len(node.next_functions) - len(metas))
    if hasattr(node, "_base_shape"):  # AsStridedBackward0 points at its base
        return ((node._base_shape, node._base_dtype),)
    if type(node) is CopySlices:  # the base (shape unknown here), then the in-place op's
        return (None,) + edge_meta(node._inplace_node)[1:]
    meta = getattr(node, "_meta", None)
    if meta is None:
        return (None,) * len(node.next_functions)
    if type(node._edges) is tuple:  # one per input: See Note [Edges are differentiable inputs]
        meta = [meta[i] for i in node._edges]
    return tuple(m if m is None else (m[0], _as_dtype(m[1])) for m in meta)


def output_meta(roots) -> dict:
    """`{(node, output_nr): (shape, dtype)}` for the outputs reached from `roots_of(...)`."""
    meta: dict = {}
    for node, nr, tensor in roots:
        if node is not None and tensor is not None:
            meta[(node, nr)] = (tuple(tensor._data.shape), tensor.dtype)
    for node in walk(n for n, _, _ in roots):
        if type(node) is AccumulateGrad:
            var = node.variable
            if var is not None:
                meta[(node, 0)] = (tuple(var._data.shape), var.dtype)
            continue
        for (child, nr), m in zip(node.next_functions, edge_meta(node)):
            if child is not None and m is not None:
                meta.setdefault((child, nr), (tuple(m[0]), m[1]))
    return meta


def saved_values(node) -> list | None:
    """A node's saved values as (PyTorch name, value) pairs; None once backward freed them.

    Values are tensors, or numbers a formula reads. Attributes (`dim`, ...) are not saved
    values; see `node._attrs`.
    """
    if type(node) is CopySlices:
        return saved_values(node._inplace_node)  # the in-place op's node holds what was saved
    saved = getattr(node, "_saved", ())
    if saved is None:
        return None
    if isinstance(saved, tuple):  # a custom Function's (tensor, version) pairs
        return [(f"saved_tensors[{i}]", t) for i, (t, _) in enumerate(saved) if t is not None]
    pairs = []
    for name, value in saved.items():
        if type(value) is SavedOutput:
            value = value.tensor
        base = name.rstrip("0123456789") if name.startswith("out") else name
        torch_name = TORCH_SAVED_NAMES.get(base, base) + name[len(base) :]
        pairs.append((torch_name, value))
    return pairs


def buffer_of(array):
    """The array that owns `array`'s memory (itself unless it is a view)."""
    while getattr(array, "base", None) is not None and hasattr(array.base, "nbytes"):
        array = array.base
    return array


def held_tensors(value) -> list:
    """The tensors a saved value keeps alive: itself, or what a packed value holds."""
    if type(value) is Packed:
        return value.held()
    return [value] if hasattr(value, "_data") else []


def _charge(nodes, owners: dict | None = None) -> dict:
    """`{node: bytes}`: each saved buffer charged once, to the earliest node that saved it.

    `owners`, if given, is filled with `{id(buffer): node charged}`.
    """
    owners = {} if owners is None else owners
    charged: dict = {}
    for node in sorted(nodes, key=lambda n: n._seq):
        total = 0
        for _, value in saved_values(node) or ():
            for tensor in held_tensors(value):
                buffer = buffer_of(tensor._data)
                if id(buffer) not in owners:
                    owners[id(buffer)] = node
                    total += int(buffer.nbytes)
        charged[node] = total
    return charged


def saved_bytes(target, by: str | None = None):
    """Bytes held by the saved tensors of the graph under `target` (see Note [Saved bytes]).

    `by=None` gives the total; `by="node"` a `{node: bytes}` dict of the nodes that saved
    something; `by="module"` a `{module: bytes}` dict keyed by `node.metadata["module"]`
    (None for nodes outside any recorded module call).
    """
    if by not in (None, "node", "module"):
        raise ValueError(f"saved_bytes: by must be None, 'node' or 'module', not {by!r}")
    nodes = walk(n for n, _, _ in roots_of(target))
    charged = _charge(nodes)
    if by is None:
        return sum(charged.values())
    if by == "node":
        return {n: charged[n] for n in nodes if charged.get(n)}
    annotate_modules(nodes)
    per_module: dict = {}
    for node in nodes:
        if charged.get(node):
            key = _module_of(node)
            per_module[key] = per_module.get(key, 0) + charged[node]
    return per_module


def _module_of(node):
    if "_metadata" not in node.__dict__:
        return None
    return node.__dict__["_metadata"].get("module")


def annotate_modules(nodes) -> dict:
    """Set `node.metadata["module"]` from the recorded module calls; return each node's calls.

    A label already in the metadata (set by the user) is kept.
    """
    spans = scope.spans_of(nodes)
    for node, chain in spans.items():
        node.metadata.setdefault("module", chain[-1].label)
    return spans


def format_bytes(n: int) -> str:
    """`96 B`, `1.5 KiB`, `3.0 MiB`."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"


# ---- the text view --------------------------------------------------------------------------
def _dtype_name(dt) -> str:
    return str(dt).replace("torch.", "")


def _tensor_text(t) -> str:
    return f"{tuple(t._data.shape)} {_dtype_name(t.dtype)}"


def _saved_text(node, charged: dict, owners: dict) -> str:
    values = saved_values(node)
    if values is None:
        freed = getattr(node, "_freed_in", None)
        return f", saved: freed by backward pass #{freed}" if freed else ", saved: freed"
    if not values:
        return ""
    parts = []
    for name, value in values:
        if type(value) is Packed:
            parts.append(f"{name} {tuple(value.shape)} {_packed_text(value, node, owners)}")
        elif hasattr(value, "_data"):
            owner = owners.get(id(buffer_of(value._data)))
            shared = f" (counted at {owner.name()})" if owner is not node else ""
            parts.append(f"{name} {tuple(value._data.shape)}{shared}")
        else:
            parts.append(f"{name}={value}")
    return f", saved {format_bytes(charged.get(node, 0))}: " + ", ".join(parts)


def _packed_text(value, node, owners: dict) -> str:
    # what the hooks keep instead of the tensor: See Note [Saved bytes]
    label = getattr(value.packed, "saved_label", "packed by saved_tensors_hooks")
    held = value.held()
    if not held:
        return f"({label}, keeps no tensor alive)"
    counted = [owners.get(id(buffer_of(t._data))) for t in held]
    elsewhere = [owner for owner in counted if owner is not None and owner is not node]
    where = f", counted at {elsewhere[0].name()}" if elsewhere else ""
    plural = "s" if len(held) != 1 else ""
    return f"({label}, keeps {len(held)} tensor{plural} alive{where})"


def _short_text(node, names: dict) -> str:
    if type(node) is AccumulateGrad:
        var = node.variable
        if var is None:
            return "AccumulateGrad: (leaf freed)"
        return f"AccumulateGrad: {names.get(id(var), 'leaf')}"
    return node.name()


def _node_text(node, meta: dict, names: dict, charged: dict, owners: dict) -> str:
    text = _short_text(node, names)
    if type(node) is AccumulateGrad:
        var = node.variable
        return text if var is None else f"{text} {_tensor_text(var)}"
    outs = [meta[(node, nr)] for nr in range(node._n_outputs) if (node, nr) in meta]
    if outs:
        text += " -> " + ", ".join(f"{tuple(s)} {_dtype_name(d)}" for s, d in outs)
    text += _saved_text(node, charged, owners)
    module = _module_of(node)
    if module is not None:
        text += f"  [{module}]"
    if "_metadata" in node.__dict__ and "autocast" in node.__dict__["_metadata"]:
        text += f"  [autocast: {node.__dict__['_metadata']['autocast']}]"  # amp's casts
    elif node.__dict__.get("_under_autocast"):
        text += "  [under autocast]"  # recorded inside an autocast region
    return text


# Note [Deep graphs in text]
# Lines are indented by depth, so a chain of n nodes would print n**2 / 2 spaces (100k ops:
# gigabytes). Past MAX_INDENT levels the indentation stops growing and each line says its
# level instead (`[depth 17] MulBackward0`): the text stays linear in the graph's size.
# Both views walk with an explicit stack: no recursion, whatever the depth.
MAX_INDENT = 16


def _depth_marker(level: int) -> str:
    return f"[depth {level}] " if level > MAX_INDENT else ""


def render_tree(target, params: dict | None = None) -> str:
    """The graph under `target` as a tree: output shape, dtype and saved bytes per node.

    A node's inputs follow it: a single input on the next line in the same column, several as
    branches. A node reached again is printed once more with "(seen above)", not expanded.
    Branches nested deeper than `MAX_INDENT` say their level (see Note [Deep graphs in text]).
    """
    roots = roots_of(target)
    names = {id(t): name for name, t in (params or {}).items()}
    nodes = walk(n for n, _, _ in roots)
    meta = output_meta(roots)
    owners: dict = {}
    charged = _charge(nodes, owners)
    annotate_modules(nodes)
    lines, seen = [], set()
    for fn, _, _ in roots:
        if fn is None:
            lines.append("(no graph: the tensor does not require grad)")
            continue
        stack = [(fn, "", "", 0)]  # node, lead (capped), branch glyph, nesting level
        while stack:
            node, lead, branch, level = stack.pop()
            prefix = lead + _depth_marker(level) + branch
            if node in seen:
                lines.append(prefix + _short_text(node, names) + " (seen above)")
                continue
            seen.add(node)
            lines.append(prefix + _node_text(node, meta, names, charged, owners))
            stack.extend(_branches(node, lead, branch, level))
    total = sum(charged.values())
    buffers = len(owners)
    lines.append(
        f"saved tensors: {format_bytes(total)} in {buffers} buffer{'s' if buffers != 1 else ''}"
    )
    return "\n".join(lines)


def _branches(node, lead: str, branch: str, level: int) -> list:
    """Stack entries for a node's inputs in the tree, the first input on top."""
    children = [c for c, _ in node.next_functions if c is not None]
    if branch:  # the inputs sit one level in, under the node's branch
        level += 1
        if level <= MAX_INDENT:
            lead += "    " if branch == "└── " else "│   "
    if len(children) == 1:  # a chain stays in its column, so deep graphs stay narrow
        return [(children[0], lead, "", level)]
    glyphs = ["├── "] * (len(children) - 1) + ["└── "]
    return [(c, lead, g, level) for c, g in reversed(list(zip(children, glyphs)))]


def render_compact(target, params: dict | None = None) -> str:
    """One node a line, indented by depth, leaves with shape and dtype: names only.

    Lines deeper than `MAX_INDENT` say their depth (see Note [Deep graphs in text]).
    """
    names = {id(t): name for name, t in (params or {}).items()}
    lines: list[str] = []
    seen: set = set()
    for fn, _, _ in roots_of(target):
        stack = [(fn, 0)] if fn is not None else []
        while stack:
            node, depth = stack.pop()
            label = node.name()
            if type(node) is AccumulateGrad and node.variable is not None:
                v = node.variable
                name = names.get(id(v))
                label += f" (leaf {name + ' ' if name else ''}{tuple(v.shape)} {v.dtype})"
            indent = "  " * min(depth, MAX_INDENT) + _depth_marker(depth)
            if node in seen:
                lines.append(indent + label + " (seen above)")
                continue
            seen.add(node)
            lines.append(indent + label)
            lines += _captured_lines(node, depth + 1)
            for child, _ in reversed(node.next_functions):
                if child is not None:
                    stack.append((child, depth + 1))
    return "\n".join(lines)


def _captured_lines(node, depth: int) -> list:
    # a compiled call's node shows the graph it runs, one level in, marked `[captured]`;
    # what that graph reaches outside it is the node's own edges, listed after it
    inner = captured_graph(node)
    if not inner:
        return []
    members = set(inner)
    lines = []
    shown: set = set()
    stack = [(n, depth) for n in reversed(node.captured) if n in members]
    while stack:
        current, level = stack.pop()
        indent = "  " * min(level, MAX_INDENT) + _depth_marker(level)
        if current in shown:
            lines.append(f"{indent}[captured] {current.name()} (seen above)")
            continue
        shown.add(current)
        lines.append(f"{indent}[captured] {current.name()}")
        for child, _ in reversed(current.next_functions):
            if child in members:
                stack.append((child, level + 1))
    return lines
