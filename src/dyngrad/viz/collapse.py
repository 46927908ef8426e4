"""Where each node of a picture goes: module calls as clusters, or collapsed into one box.

With `collapse=d`, a module call at depth d (the outermost call is depth 0; `True` means 1
when one call holds the whole graph, as a model does, else 0) is drawn as one box holding
every node it created, unless its name is in `expand`: that call is drawn open, as a
cluster, and its own calls one level down collapse instead. A parameter used only inside one
box is folded into it. Which nodes a call created comes from the recorded spans
(see Note [Module scope] in autograd/scope.py).
"""

from __future__ import annotations

import warnings

from ..autograd.inspect_graph import annotate_modules
from ..graph.node import AccumulateGrad

__all__ = ["Layout"]


class Layout:
    """Placement of nodes in the top-level graph, in module clusters, or in collapsed boxes."""

    def __init__(self, dot, nodes, collapse, expand=()):
        self.dot = dot
        self.boxes: dict = {}  # span -> the nodes drawn as that one box
        self.hidden: dict = {}  # node -> its box's span
        self.cluster: dict = {}  # visible node -> innermost open span it is drawn in
        self.parent: dict = {}  # open or collapsed span -> enclosing open span (None: top)
        self.edges: set = set()
        self.folded: dict = {}  # AccumulateGrad -> the box it is folded into
        self.clusters: dict = {}  # open span -> its cluster subgraph
        if collapse is False or collapse is None:
            return
        chains = annotate_modules(nodes)
        if not chains:
            warnings.warn(
                "make_dot(collapse=...): no module calls were recorded for this graph; "
                "run the forward under dyngrad.viz.record_modules()",
                UserWarning,
                stacklevel=3,
            )
            return
        if collapse is True:  # inside the one outermost call (the model), else at the top
            outermost = {chain[0] for chain in chains.values()}
            depth = 1 if len(outermost) == 1 else 0
        else:
            depth = int(collapse)
        self._place(nodes, chains, depth, set(expand))
        self._fold_leaves(nodes)

    def _place(self, nodes, chains: dict, depth: int, expand: set) -> None:
        for node in nodes:
            chain = chains.get(node, ())
            box = next((s for s in chain if s.depth >= depth and not _named(s, expand)), None)
            outer = chain[: chain.index(box)] if box is not None else chain
            for i, span in enumerate(outer + ((box,) if box is not None else ())):
                self.parent.setdefault(span, outer[i - 1] if i else None)
            if box is not None:
                self.hidden[node] = box
                self.boxes.setdefault(box, []).append(node)
            elif outer:
                self.cluster[node] = outer[-1]

    def _fold_leaves(self, nodes) -> None:
        consumers: dict = {}
        for node in nodes:
            for child, _ in node.next_functions:
                if type(child) is AccumulateGrad:
                    consumers.setdefault(child, set()).add(self.hidden.get(node, node))
        for leaf, users in consumers.items():
            only = next(iter(users)) if len(users) == 1 else None
            if only in self.boxes:
                self.folded[leaf] = only
            else:
                spans = {self.cluster.get(u) for u in users}
                if len(spans) == 1 and None not in spans:
                    self.cluster[leaf] = spans.pop()

    # ---- what make_dot asks -----------------------------------------------------------------
    def rep(self, node) -> str:
        """The id of what stands for `node` in the picture: itself, or its module's box."""
        box = self.hidden.get(node) or self.folded.get(node)
        return f"module_{box.start}" if box is not None else str(id(node))

    def graph_of(self, node):
        """The graph or cluster to draw `node` in; None when a box stands for it."""
        if node in self.hidden or node in self.folded:
            return None
        span = self.cluster.get(node)
        return self.dot if span is None else self._cluster(span)

    def edge(self, child, parent) -> None:
        if child in self.folded:
            return
        a, b = self.rep(child), self.rep(parent)
        if a != b and (a, b) not in self.edges:
            self.edges.add((a, b))
            self.dot.edge(a, b)

    def finish(self, names: dict) -> None:
        """Draw the boxes, then nest the clusters into each other and into the graph."""
        for span, members in self.boxes.items():
            graph = self.dot if self.parent[span] is None else self._cluster(self.parent[span])
            graph.node(
                f"module_{span.start}",
                self._box_label(span, members, names),
                shape="box3d",
                fillcolor="lightyellow",
            )
        for span in list(self.clusters):  # a cluster's enclosing calls are clusters too
            while self.parent.get(span) is not None:
                span = self.parent[span]
                self._cluster(span)
        # a subgraph is copied when added: fill the innermost clusters first
        for span in sorted(self.clusters, key=lambda s: -s.depth):
            outer = self.parent.get(span)
            graph = self.dot if outer is None else self.clusters[outer]
            graph.subgraph(self.clusters[span])

    def _box_label(self, span, members, names) -> str:
        lines = [span.label, f"{len(members)} node{'s' if len(members) != 1 else ''}"]
        for leaf, box in self.folded.items():
            var = leaf.variable
            if box is span and var is not None:
                shape = "(" + ", ".join(str(d) for d in var._data.shape) + ")"
                lines.append(f"{names.get(id(var), 'param')} {shape}")
        return "\n".join(lines)

    def _cluster(self, span):
        if span not in self.clusters:
            sub = type(self.dot)(name=f"cluster_{span.start}")
            sub.attr(
                label=span.label,
                style="rounded,dashed",
                color="gray40",
                fontname="monospace",
                fontsize="10",
            )
            self.clusters[span] = sub
        return self.clusters[span]


def _named(span, expand: set) -> bool:
    label = span.label
    return label in expand or label.split(" (")[0] in expand
