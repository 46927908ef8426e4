"""`dyngrad.viz.make_dot`: torchviz's picture of the graph, module boxes, rendering."""

from __future__ import annotations

import re
import shutil

import pytest

import dyngrad as torch
from dyngrad import viz
from dyngrad.autograd import scope

from ..scoped import ScopedModule

pytest.importorskip("graphviz")


def nodes_of(dot) -> dict:
    """`{node id: (label, attributes)}` from a Digraph's source."""
    found = {}
    for m in re.finditer(r'^\t+(\w+) \[label=("(?:[^"\\]|\\.)*"|\S+)(.*)\]$', dot.source, re.M):
        found[m.group(1)] = (m.group(2).strip('"'), m.group(3))
    return found


def edges_of(dot) -> set:
    return set(re.findall(r"^\t+(\w+) -> (\w+)", dot.source, re.M))


def test_torchviz_styles_names_and_sizes():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([3.0, 1.0], requires_grad=True)
    y = (x * w).exp().sum()
    dot = viz.make_dot(y, params={"x": x, "w": w})
    nodes = nodes_of(dot)
    assert nodes[str(id(y))] == ("\n ()", " fillcolor=darkolivegreen1")
    assert nodes[str(id(x))] == ("x\n (2)", " fillcolor=lightblue")
    assert nodes[str(id(w))] == ("w\n (2)", " fillcolor=lightblue")
    labels = sorted(label for label, attrs in nodes.values() if not attrs)
    assert labels == [
        "AccumulateGrad",
        "AccumulateGrad",
        "ExpBackward0",
        "MulBackward0",
        "SumBackward0",
    ]
    exp, mul = y.grad_fn.next_functions[0][0], y.grad_fn.next_functions[0][0].next_functions[0][0]
    assert (str(id(exp)), str(id(y.grad_fn))) in edges_of(dot)
    assert (str(id(mul)), str(id(exp))) in edges_of(dot)
    acc_x = mul.next_functions[0][0]
    assert (str(id(x)), str(id(acc_x))) in edges_of(dot)
    assert dot.node_attr["shape"] == "box" and dot.node_attr["style"] == "filled"


def test_unnamed_leaf_has_empty_name():
    x = torch.ones(2, 3, requires_grad=True)
    assert nodes_of(viz.make_dot(x.sum()))[str(id(x))][0] == "\n (2, 3)"


def test_show_saved_draws_saved_tensors_in_orange():
    x = torch.ones(3, requires_grad=True)
    y = x.sigmoid()
    dot = viz.make_dot(y.sum(), show_saved=True)
    saved = [(label, attrs) for label, attrs in nodes_of(dot).values() if "orange" in attrs]
    assert saved == [("result\n (3)", " fillcolor=orange")]
    assert "[dir=none]" in dot.source


def test_show_attrs_lists_saved_values_and_attributes():
    x = torch.ones(2, 3, requires_grad=True)
    dot = viz.make_dot((x * 2).sum(dim=1, keepdim=True).sum(), show_attrs=True)
    labels = [label for label, _ in nodes_of(dot).values()]
    assert "MulBackward0\n------------\nother: 2" in labels
    # torchviz's layout: names padded to one column, values right-aligned in the next
    assert "SumBackward1\n-------------\ndim    : (1,)\nkeepdim: True\ndtype  : None" in labels


def test_show_attrs_truncates_long_values():
    x = torch.ones(2, 3, requires_grad=True)
    dot = viz.make_dot(x.permute(1, 0).sum(), show_attrs=True, max_attr_chars=5)
    label = next(lbl for lbl, _ in nodes_of(dot).values() if lbl.startswith("Permute"))
    assert label.splitlines()[2] == "dims: (1..."


def test_view_output_draws_its_base_dotted():
    x = torch.ones(2, 3, requires_grad=True)
    base = x * 2
    v = base[0]
    dot = viz.make_dot(v)
    nodes = nodes_of(dot)
    assert nodes[str(id(base))][1] == " fillcolor=darkolivegreen3"
    assert f"{id(base)} -> {id(v)} [style=dotted]" in dot.source


def test_tuple_of_outputs():
    x = torch.ones(2, requires_grad=True)
    a, b = x * 2, x.exp()
    nodes = nodes_of(viz.make_dot((a, b)))
    assert nodes[str(id(a))][1] == nodes[str(id(b))][1] == " fillcolor=darkolivegreen1"


# ---- module boxes ---------------------------------------------------------------------------
def two_stage_graph():
    inp = torch.randn(4, 3)
    w1 = torch.randn(3, 5, requires_grad=True)
    w2 = torch.randn(5, 2, requires_grad=True)
    with viz.record_modules():
        with viz.module_scope("fc1"):
            h = (inp @ w1).relu()
        with viz.module_scope("head"):
            with viz.module_scope("fc2"):
                out = h @ w2
            out = out.tanh()
    return out.sum(), {"w1": w1, "w2": w2}


def test_collapse_draws_one_box_per_call_with_its_parameters():
    loss, params = two_stage_graph()
    dot = viz.make_dot(loss, params=params, collapse=True)
    boxes = {label: attrs for label, attrs in nodes_of(dot).values() if "box3d" in attrs}
    assert set(boxes) == {"fc1\n2 nodes\nw1 (3, 5)", "head\n2 nodes\nw2 (5, 2)"}
    ops = [label for label, attrs in nodes_of(dot).values() if not attrs]
    assert ops == ["SumBackward0"]  # every other node is inside a box
    assert len(re.findall(r"module_\d+ -> module_\d+", dot.source)) == 1  # fc1 feeds head


def test_expand_opens_a_call_as_a_cluster():
    loss, params = two_stage_graph()
    dot = viz.make_dot(loss, params=params, collapse=True, expand=["head"])
    assert re.search(r"subgraph cluster_\d+ \{\n\t+color=gray40 .*label=head", dot.source)
    boxes = [label for label, attrs in nodes_of(dot).values() if "box3d" in attrs]
    assert sorted(boxes) == ["fc1\n2 nodes\nw1 (3, 5)", "head.fc2\n1 node\nw2 (5, 2)"]
    assert "TanhBackward0" in [label for label, _ in nodes_of(dot).values()]


def test_collapse_without_recorded_calls_warns_and_draws_everything():
    x = torch.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="no module calls were recorded"):
        dot = viz.make_dot(x.exp().sum(), collapse=True)
    assert "ExpBackward0" in dot.source and "box3d" not in dot.source


Module = ScopedModule


class Linear(Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self._parameters = {"weight": torch.randn(n_out, n_in, requires_grad=True)}

    def forward(self, x):
        return x @ self._parameters["weight"].t()


class Net(Module):
    def __init__(self):
        super().__init__(fc1=Linear(3, 4), fc2=Linear(4, 2))

    def forward(self, x):
        return self._modules["fc2"](self._modules["fc1"](x).relu())


def test_module_calls_are_boxes_named_by_attribute_and_class():
    net = Net()
    with viz.record_modules():
        loss = net(torch.randn(5, 3)).sum()
    params = {"fc1.weight": net._modules["fc1"]._parameters["weight"]}
    dot = viz.make_dot(loss, params=params, collapse=True)
    boxes = sorted(label for label, attrs in nodes_of(dot).values() if "box3d" in attrs)
    assert boxes == [
        "model.fc1 (Linear)\n2 nodes\nfc1.weight (4, 3)",
        "model.fc2 (Linear)\n2 nodes\nparam (2, 4)",
    ]
    assert re.search(r"label=\"model \(Net\)\"", dot.source)  # the open outermost call
    assert loss.grad_fn.metadata.get("module") is None  # .sum() ran outside the model


def test_module_calls_outside_recording_are_not_logged():
    net = Net()
    loss = net(torch.randn(5, 3)).sum()
    assert scope.spans_of(n for n, _ in loss.grad_fn.next_functions) == {}


# ---- rendering ------------------------------------------------------------------------------
@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot program is not installed")
def test_renders_png_and_svg(tmp_path):
    x = torch.randn(3, requires_grad=True)
    w = torch.randn(3, requires_grad=True)
    dot = viz.make_dot((x * w).tanh().sum(), params={"x": x, "w": w}, show_saved=True)
    png = dot.render("graph", directory=tmp_path, format="png")
    svg = dot.render("graph", directory=tmp_path, format="svg")
    assert open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    text = open(svg, encoding="utf-8").read()
    assert "<svg" in text and "TanhBackward0" in text and "MulBackward0" in text


def test_deep_chain_draws_every_node_without_recursion():
    x = torch.ones(1, requires_grad=True)
    y = x
    for _ in range(20_000):  # far past Python's recursion limit
        y = y.neg()
    dot = viz.make_dot(y)
    labels = [label for label, _ in nodes_of(dot).values()]
    assert labels.count("NegBackward0") == 20_000 and labels.count("AccumulateGrad") == 1
    assert len(edges_of(dot)) == 20_000 + 2  # the chain, the leaf's edge, the output's
