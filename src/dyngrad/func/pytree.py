"""Pytrees as `torch.utils._pytree` has them: nested tuples, lists, dicts and namedtuples.

# Leaves are everything that is not one of those containers, None included; dicts keep their
# insertion order.
"""

from __future__ import annotations

__all__ = ["TreeSpec", "LEAF", "tree_flatten", "tree_unflatten", "tree_map", "broadcast_prefix"]


class TreeSpec:
    """The shape of a pytree: a container type, its keys, and one spec per child."""

    __slots__ = ("kind", "keys", "children", "num_leaves")

    def __init__(self, kind, keys, children: list):
        self.kind = kind  # None for a leaf
        self.keys = keys  # dict keys, or namedtuple fields
        self.children = children
        self.num_leaves = 1 if kind is None else sum(c.num_leaves for c in children)

    def is_leaf(self) -> bool:
        return self.kind is None

    def __eq__(self, other) -> bool:
        return (
            isinstance(other, TreeSpec)
            and self.kind is other.kind
            and self.keys == other.keys
            and self.children == other.children
        )

    def __repr__(self, indent: int = 0) -> str:
        """PyTorch's `TreeSpec` repr: `TreeSpec(tuple, None, [*,\n  *])`."""
        if self.kind is None:
            return "*"
        if _is_namedtuple(self.kind):
            name, context = "namedtuple", self.kind
        else:
            name, context = self.kind.__name__, self.keys
        indent += 2
        children = [c.__repr__(indent) for c in self.children]
        body = ("," + "\n" + " " * indent).join(children)
        return f"TreeSpec({name}, {context}, [{body}])"

    def pprint(self) -> str:
        """PyTorch's `treespec_pprint`: `*` per leaf, `(*, *)`, `[*]`, `{'a': *}`, `P(a=*)`."""
        if self.kind is None:
            return "*"
        parts = [c.pprint() for c in self.children]
        if self.kind is tuple:
            return f"({parts[0]},)" if len(parts) == 1 else f"({', '.join(parts)})"
        if self.kind is list:
            return f"[{', '.join(parts)}]"
        if self.kind is dict:
            return "{" + ", ".join(f"{k!r}: {p}" for k, p in zip(self.keys, parts)) + "}"
        if _is_namedtuple(self.kind):
            fields = ", ".join(f"{k}={p}" for k, p in zip(self.keys, parts))
            return f"{self.kind.__name__}({fields})"
        items = ", ".join(f"({k!r}, {p})" for k, p in zip(self.keys, parts))
        return f"{self.kind.__name__}([{items}])"


LEAF = TreeSpec(None, None, [])


def _is_namedtuple(kind) -> bool:
    return issubclass(kind, tuple) and hasattr(kind, "_fields")


def _children(tree):
    """(kind, keys, children) of a container, or None for a leaf."""
    kind = type(tree)
    if kind in (tuple, list):
        return kind, None, list(tree)
    if isinstance(tree, dict):
        kind = dict if kind is dict else kind  # OrderedDict and friends keep their type
        return kind, list(tree), list(tree.values())
    if isinstance(tree, tuple) and _is_namedtuple(kind):
        return kind, list(kind._fields), list(tree)
    return None


def tree_flatten(tree) -> tuple[list, TreeSpec]:
    """Matches `torch.utils._pytree.tree_flatten`: (leaves, spec)."""
    leaves: list = []
    return leaves, _flatten_into(tree, leaves)


def _flatten_into(tree, leaves: list) -> TreeSpec:
    node = _children(tree)
    if node is None:
        leaves.append(tree)
        return LEAF
    kind, keys, children = node
    return TreeSpec(kind, keys, [_flatten_into(c, leaves) for c in children])


def tree_unflatten(leaves, spec: TreeSpec):
    """Matches `torch.utils._pytree.tree_unflatten`: the tree of `spec` over `leaves`."""
    it = iter(leaves)
    return _build(spec, it)


def _build(spec: TreeSpec, it):
    if spec.kind is None:
        return next(it)
    children = [_build(c, it) for c in spec.children]
    if spec.kind in (tuple, list):
        return spec.kind(children)
    if spec.keys is not None and issubclass(spec.kind, dict):
        return spec.kind(zip(spec.keys, children))
    return spec.kind(*children)  # a namedtuple


def tree_map(fn, tree):
    """Matches `torch.utils._pytree.tree_map`: `fn` applied to every leaf."""
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(leaf) for leaf in leaves], spec)


def broadcast_prefix(prefix, spec: TreeSpec) -> list | None:
    """`prefix`'s leaves repeated over the subtrees of `spec` they stand for; None on mismatch."""
    node = _children(prefix)
    if node is None:
        return [prefix] * spec.num_leaves
    kind, keys, children = node
    if spec.kind is None or kind is not spec.kind or keys != spec.keys:
        return None
    if len(children) != len(spec.children):
        return None
    flat: list = []
    for child, child_spec in zip(children, spec.children):
        part = broadcast_prefix(child, child_spec)
        if part is None:
            return None
        flat.extend(part)
    return flat
