"""`dyngrad.utils.summary`: a model's layers, output shapes, parameters and the activation
bytes each layer's call leaves saved for backward (*dyngrad only*; torchsummary's table plus
what the graph holds)."""

from __future__ import annotations

from .._tensor import Tensor
from ..autograd import scope
from ..autograd.graph import saved_bytes
from ..autograd.inspect_graph import (
    buffer_of,
    format_bytes,
    held_tensors,
    roots_of,
    saved_values,
    walk,
)
from ..graph.grad_mode import enable_grad

__all__ = ["summary", "ModelSummary", "LayerSummary"]


class LayerSummary:
    """One module call: its name (`features.0`), type, depth (the model is 0), output
    shape(s), parameter count (recursive; 0 for a repeated call of the same module) and the
    activation bytes that the nodes it created keep for backward (its submodules' included;
    a buffer saved by several nodes counts once, at the first; parameters a node saves are
    not activations and count in `ModelSummary.saved_bytes` only)."""

    # a plain class: @dataclass costs ~10 ms of `import dyngrad` (tests/test_import.py)
    __slots__ = ("name", "type", "depth", "output_shape", "params", "saved_bytes")

    def __init__(self, name, type, depth, output_shape, params, saved_bytes):  # noqa: A002
        self.name, self.type, self.depth = name, type, depth
        self.output_shape, self.params, self.saved_bytes = output_shape, params, saved_bytes

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__)
        return f"LayerSummary({fields})"


class ModelSummary:
    """What `summary` found; `str()` gives the table."""

    def __init__(self) -> None:
        self.layers: list = []
        self.total_params = 0
        self.trainable_params = 0
        self.param_bytes = 0
        self.activation_bytes = 0  # what the rows add up: saved tensors that are no parameter
        self.saved_bytes = 0  # everything the graph's nodes saved, parameters included
        self.graph_nodes = 0

    def __str__(self) -> str:
        return render(self)

    __repr__ = __str__


def summary(model, input_data, *, depth: int | None = None) -> ModelSummary:
    """Run `model(input_data)` once (grad enabled, the model in its current train/eval mode)
    and list each module call: output shape, parameters, saved-for-backward bytes.

    `input_data` is a tensor, or a tuple/list of the forward's positional arguments. Calls
    deeper than `depth` (the model's children are depth 1) are left out of the rows, not of
    the totals. *dyngrad only*; `print(dyngrad.utils.summary(model, x))` prints the table.
    """
    args = tuple(input_data) if isinstance(input_data, (tuple, list)) else (input_data,)
    outputs: dict = {}

    def record_output(module, inputs, output):
        outputs.setdefault(id(module), []).append(_shape_of(output))

    handles = [m.register_forward_hook(record_output) for m in model.modules()]
    try:
        with enable_grad(), scope.record_modules():
            result = model(*args)
            spans = scope.recorded_spans()
    finally:
        for handle in handles:
            handle.remove()
    tensors = [t for t in _flatten(result) if isinstance(t, Tensor)]
    nodes = walk(n for n, _, _ in roots_of(tensors)) if tensors else []
    per_node = _activation_bytes(nodes, model)
    report = _totals(model)
    report.saved_bytes = saved_bytes(tensors) if tensors else 0
    report.activation_bytes = sum(per_node.values())
    report.graph_nodes = len(nodes)
    report.layers = _layers(model, spans, outputs, per_node, depth)
    return report


def _layers(model, spans, outputs: dict, per_node: dict, depth) -> list:
    # a span holds the nodes whose sequence numbers lie inside it (Note [Module scope])
    seqs = sorted((node._seq, size) for node, size in per_node.items())
    names = {id(m): name for name, m in model.named_modules()}
    calls: dict = {}
    layers = []
    for span in sorted(spans, key=lambda s: s.start):
        module = span.path[-1]
        if isinstance(module, str) or id(module) not in names:
            continue
        k = calls[id(module)] = calls.get(id(module), -1) + 1
        if depth is not None and span.depth > depth:
            continue
        shapes = outputs.get(id(module), [])
        params = sum(p.numel() for p in module.parameters()) if k == 0 else 0
        held = sum(size for seq, size in seqs if span.start < seq < span.end)
        name = names[id(module)] or type(module).__name__
        layer = LayerSummary(name, type(module).__name__, span.depth, shapes[k], params, held)
        layers.append(layer)
    return layers


def _activation_bytes(nodes, model) -> dict:
    """`{node: bytes}`: each saved buffer that is no parameter's, charged once, to the first
    node (by sequence number) that saved it, as `saved_bytes(by="node")` charges."""
    seen = {id(buffer_of(p._data)) for p in model.parameters()}
    charged = {}
    for node in sorted((n for n in nodes if n._seq != float("inf")), key=lambda n: n._seq):
        total = 0
        for _, value in saved_values(node) or ():
            for tensor in held_tensors(value):
                buffer = buffer_of(tensor._data)
                if id(buffer) not in seen:
                    seen.add(id(buffer))
                    total += int(buffer.nbytes)
        if total:
            charged[node] = total
    return charged


def _totals(model) -> ModelSummary:
    report = ModelSummary()
    for p in model.parameters():  # each shared parameter once, as Module.parameters gives it
        report.total_params += p.numel()
        report.trainable_params += p.numel() if p.requires_grad else 0
        report.param_bytes += p.numel() * p.element_size()
    return report


def _flatten(value) -> list:
    if isinstance(value, (tuple, list)):
        return [item for part in value for item in _flatten(part)]
    if isinstance(value, dict):
        return [item for part in value.values() for item in _flatten(part)]
    return [value]


def _shape_of(output):
    if isinstance(output, Tensor):
        return list(output.shape)
    if isinstance(output, (tuple, list)):
        return [_shape_of(item) for item in output]
    if isinstance(output, dict):
        return {key: _shape_of(item) for key, item in output.items()}
    return type(output).__name__


def render(report: ModelSummary) -> str:
    """The table: one row per module call, indented by depth, then the totals."""
    header = ("Layer (type)", "Output Shape", "Param #", "Saved activations")
    rows = [
        (
            "  " * layer.depth + (f"{layer.name} ({layer.type})" if layer.depth else layer.type),
            str(layer.output_shape),
            f"{layer.params:,}" if layer.params else "--",
            format_bytes(layer.saved_bytes) if layer.saved_bytes else "--",
        )
        for layer in report.layers
    ]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(4)]

    def row(cells) -> str:
        first = cells[0].ljust(widths[0])
        rest = [cell.rjust(width) for cell, width in zip(cells[1:], widths[1:])]
        return "  ".join([first, *rest])

    rule = "=" * len(row(header))
    lines = [rule, row(header), rule, *(row(r) for r in rows), rule]
    non_trainable = report.total_params - report.trainable_params
    lines += [
        f"Total params: {report.total_params:,}",
        f"Trainable params: {report.trainable_params:,}",
        f"Non-trainable params: {non_trainable:,}",
        f"Params size: {format_bytes(report.param_bytes)}",
        f"Saved activations: {format_bytes(report.activation_bytes)} "
        f"({format_bytes(report.saved_bytes)} saved by {report.graph_nodes} graph nodes, "
        "parameters included)",
        rule,
    ]
    return "\n".join(lines)
