"""TensorBoard's event records for scalars, histograms, text and graphs, built from arrays."""

from __future__ import annotations

import numpy as np
from tensorboard.compat.proto.attr_value_pb2 import AttrValue
from tensorboard.compat.proto.graph_pb2 import GraphDef
from tensorboard.compat.proto.node_def_pb2 import NodeDef
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.compat.proto.versions_pb2 import VersionDef
from tensorboard.plugins.text.metadata import create_summary_metadata

from ..._tensor import Tensor

__all__ = ["as_array", "scalar", "histogram", "text", "graph_def"]


def as_array(value) -> np.ndarray:
    """A tensor, array or number as a NumPy array (detached, on the CPU)."""
    if isinstance(value, Tensor):
        return value.detach().cpu().numpy()
    return np.asarray(value)


def scalar(tag: str, value) -> Summary:
    array = as_array(value).squeeze()
    if array.ndim != 0:
        raise AssertionError(f"scalar should be 0D, got a tensor of shape {tuple(array.shape)}")
    return Summary(value=[Summary.Value(tag=tag, simple_value=float(array))])


def _tensorflow_bins() -> np.ndarray:
    # TensorFlow's default histogram buckets, which PyTorch's bins="tensorflow" names:
    # exponentially spaced (ratio 1.1) from 1e-12 to 1e20, mirrored, with 0 between
    positive = 1e-12 * 1.1 ** np.arange(int(np.ceil(np.log(1e32) / np.log(1.1))))
    positive = positive[positive < 1e20]
    return np.concatenate([-positive[::-1], [0.0], positive])


def histogram(tag: str, values, bins="tensorflow", max_bins: int | None = None) -> Summary:
    array = as_array(values).astype(np.float64).ravel()
    if array.size == 0:
        raise ValueError("The histogram is empty, please file a bug report.")
    edges = _tensorflow_bins() if isinstance(bins, str) and bins == "tensorflow" else bins
    counts, limits = np.histogram(array, bins=edges)
    if max_bins is not None and len(counts) > max_bins:
        # merge neighbouring buckets so that at most max_bins remain
        factor = -(-len(counts) // max_bins)
        pad = (-len(counts)) % factor
        counts = np.pad(counts, (0, pad)).reshape(-1, factor).sum(axis=1)
        limits = np.concatenate([limits[:-1:factor], limits[-1:]])
    # TensorBoard reads each bucket by its right edge; to keep the left edge of the first
    # non-empty bucket, an empty bucket ending there goes first (as PyTorch writes it)
    nonzero = np.flatnonzero(counts)
    first, last = (nonzero[0], nonzero[-1] + 1) if nonzero.size else (0, len(counts))
    kept = counts[first - 1 : last] if first > 0 else np.concatenate([[0], counts[:last]])
    proto = HistogramProto(
        min=float(array.min()),
        max=float(array.max()),
        num=float(array.size),
        sum=float(array.sum()),
        sum_squares=float(np.dot(array, array)),
        bucket_limit=limits[first : last + 1].tolist(),
        bucket=kept.astype(np.float64).tolist(),
    )
    return Summary(value=[Summary.Value(tag=tag, histo=proto)])


def text(tag: str, text_string: str) -> Summary:
    tensor = TensorProto(
        dtype="DT_STRING",
        string_val=[text_string.encode("utf-8")],
        tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]),
    )
    metadata = create_summary_metadata(display_name=None, description=None)
    return Summary(
        value=[Summary.Value(tag=tag + "/text_summary", metadata=metadata, tensor=tensor)]
    )


def graph_def(outputs, parameter_names: dict) -> GraphDef:
    """The autograd graph behind `outputs` as a GraphDef: one node per backward node (named
    by its PyTorch name, `AddmmBackward0`), leaves named by their parameter names."""
    names: dict = {}
    nodes: list = []
    order: list = []
    stack = [t.grad_fn for t in outputs if t.grad_fn is not None]
    while stack:
        fn = stack.pop()
        if id(fn) in names:
            continue
        names[id(fn)] = _node_name(fn, parameter_names, len(names))
        order.append(fn)
        stack.extend(next_fn for next_fn, _ in fn.next_functions if next_fn is not None)
    for fn in reversed(order):
        inputs = [names[id(n)] for n, _ in fn.next_functions if n is not None]
        attr = {}
        variable = getattr(fn, "variable", None)
        if variable is not None:
            attr["shape"] = AttrValue(s=str(list(variable.shape)).encode())
        nodes.append(NodeDef(name=names[id(fn)], op=fn.name(), input=inputs, attr=attr))
    return GraphDef(node=nodes, versions=VersionDef(producer=22))


def _node_name(fn, parameter_names: dict, index: int) -> str:
    variable = getattr(fn, "variable", None)
    if variable is not None and id(variable) in parameter_names:
        return parameter_names[id(variable)].replace(".", "/")
    return f"{fn.name()}_{index}"
