"""`make_dot`: the backward graph as a Graphviz picture, drawn as torchviz draws it.

Nodes are boxes named by their class (`MulBackward0`); outputs are dark olive green, leaves
light blue (named from `params`), saved tensors orange, and each tensor shows its size.
`collapse` draws module calls as boxes (see `collapse.py`).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..autograd.inspect_graph import captured_graph, saved_values, walk
from ..graph.node import AccumulateGrad
from .collapse import Layout

__all__ = ["make_dot"]

NODE_ATTR = dict(
    style="filled",
    shape="box",
    align="left",
    fontsize="10",
    ranksep="0.1",
    height="0.2",
    fontname="monospace",
)


def graphviz_module():
    """The optional `graphviz` package, or an ImportError that says how to install it."""
    try:
        import graphviz
    except ImportError:
        raise ImportError(
            "dyngrad.viz needs the graphviz Python package: pip install "
            "dyngrad[viz] (rendering also needs Graphviz's `dot` program, e.g. "
            "apt-get install graphviz)"
        ) from None
    return graphviz


def make_dot(
    var,
    params: dict | None = None,
    show_attrs: bool = False,
    show_saved: bool = False,
    max_attr_chars: int = 50,
    *,
    collapse: bool | int = False,
    expand: Iterable[str] = (),
):
    """Matches torchviz's `make_dot`: a `graphviz.Digraph` of the graph that produced `var`.

    `var` is a tensor or a tuple of them; `params` maps names to leaf tensors. `show_attrs`
    lists each node's saved values and attributes, `show_saved` draws saved tensors.
    *dyngrad only*: `collapse=True` (or a depth) draws each module call at that depth as one
    box, from spans recorded under `record_modules()`; `expand` names calls to keep open.
    """
    gv = graphviz_module()
    dot = gv.Digraph(node_attr=dict(NODE_ATTR), graph_attr=dict(size="12,12"))
    outputs = [(v, "darkolivegreen1") for v in (var if isinstance(var, tuple) else (var,))]
    outputs += [(v._base, "darkolivegreen3") for v, _ in outputs if v._base is not None]
    nodes = walk(v.grad_fn for v, _ in outputs if v.grad_fn is not None)
    layout = Layout(dot, nodes, collapse, expand)
    names = {id(v): k for k, v in (params or {}).items()}
    drawn: set = set()
    for v, color in outputs:
        _add_tensor(dot, v, names, color, drawn)
        if v.grad_fn is not None:
            dot.edge(layout.rep(v.grad_fn), str(id(v)))
        if v._base is not None:
            dot.edge(str(id(v._base)), str(id(v)), style="dotted")
    for fn in nodes:
        _add_node(layout, fn, names, show_attrs, show_saved, max_attr_chars, drawn)
        _add_captured(gv, dot, fn, show_attrs, max_attr_chars)
    layout.finish(names)
    _resize(dot)
    return dot


def _size(shape) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ")"


def _tensor_label(t, names: dict, name: str | None = None) -> str:
    return f"{name or names.get(id(t), '')}\n {_size(t._data.shape)}"


def _add_tensor(graph, t, names: dict, color: str, drawn: set, name=None) -> None:
    if id(t) not in drawn:
        drawn.add(id(t))
        graph.node(str(id(t)), _tensor_label(t, names, name), fillcolor=color)


def _add_node(layout, fn, names, show_attrs, show_saved, max_attr_chars, drawn) -> None:
    for child, _ in fn.next_functions:
        if child is not None:
            layout.edge(child, fn)
    graph = layout.graph_of(fn)
    if graph is None:  # a collapsed module call's box stands for it
        return
    me = str(id(fn))
    if show_saved:
        for name, value in saved_values(fn) or ():
            if hasattr(value, "_data"):
                _add_tensor(graph, value, names, "orange", drawn, name)
                graph.edge(me, str(id(value)), dir="none")
    if type(fn) is AccumulateGrad and fn.variable is not None:
        _add_tensor(graph, fn.variable, names, "lightblue", drawn)
        graph.edge(str(id(fn.variable)), me)
    graph.node(me, _fn_label(fn, show_attrs, max_attr_chars))


def _add_captured(gv, dot, fn, show_attrs: bool, max_attr_chars: int) -> None:
    """A compiled call's node (CompiledFunctionBackward) shows the graph its backward runs: a
    dashed cluster below it; its inner edges that leave the capture are dotted and end at the
    node's own children."""
    inner = captured_graph(fn)
    if not inner:
        return
    members = set(inner)
    cluster = gv.Digraph(
        name=f"cluster_captured_{id(fn)}",
        graph_attr={"label": "captured graph", "style": "dashed", "color": "gray40"},
    )
    for node in inner:
        me = f"captured_{id(node)}"
        cluster.node(me, _fn_label(node, show_attrs, max_attr_chars), fillcolor="white")
        for child, _ in node.next_functions:
            if child in members:
                cluster.edge(f"captured_{id(child)}", me)
            elif child is not None:
                dot.edge(str(id(child)), me, style="dotted")
    for root in fn.captured:
        if root in members:
            dot.edge(f"captured_{id(root)}", str(id(fn)), style="dashed")
    dot.subgraph(cluster)


def _fn_label(fn, show_attrs: bool, max_attr_chars: int) -> str:
    name = type(fn).__name__
    if not show_attrs:
        return name
    attrs = {}
    for key, value in saved_values(fn) or ():
        attrs[key] = "[saved tensor]" if hasattr(value, "_data") else str(value)
    for key, value in (getattr(fn, "_attrs", None) or {}).items():
        if isinstance(value, tuple) and any(hasattr(v, "_data") for v in value):
            attrs[key] = "[saved tensors]"
        else:
            attrs[key] = "[saved tensor]" if hasattr(value, "_data") else str(value)
    if not attrs:
        return name
    width = max(max_attr_chars, 3)
    col1 = max(len(k) for k in attrs)
    col2 = min(max(len(v) for v in attrs.values()), width)
    rule = "-" * max(col1 + col2 + 2, len(name))
    rows = [f"{k:<{col1}}: {_truncate(v, col2):>{col2}}" for k, v in attrs.items()]
    return "\n".join([name, rule, *rows])


def _truncate(text: str, width: int) -> str:
    return text[: width - 3] + "..." if len(text) > width else text


def _resize(dot, size_per_element: float = 0.15, min_size: float = 12) -> None:
    # as torchviz: the canvas grows with the number of statements so large graphs stay legible
    size = max(min_size, len(dot.body) * size_per_element)
    dot.graph_attr.update(size=f"{size},{size}")
