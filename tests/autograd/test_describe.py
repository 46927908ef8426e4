"""The text view of a graph (`describe`, `print_graph`) and saved-memory accounting."""

from __future__ import annotations

import io

import pytest

import dyngrad as torch
from dyngrad.autograd import inspect_graph
from dyngrad.autograd.graph import describe, print_graph, saved_bytes
from dyngrad.viz import module_scope, record_modules


def test_describe_default_is_one_node_a_line():
    x = torch.tensor([1.0], requires_grad=True)
    y = x**2 + x * 3
    assert describe(y) == (
        "AddBackward0\n"
        "  PowBackward0\n"
        "    torch::autograd::AccumulateGrad (leaf (1,) torch.float32)\n"
        "  MulBackward0\n"
        "    torch::autograd::AccumulateGrad (leaf (1,) torch.float32) (seen above)"
    )


def test_describe_names_leaves_from_params():
    x = torch.tensor([1.0], requires_grad=True)
    assert describe(x * 2, params={"x": x}).splitlines()[1] == (
        "  torch::autograd::AccumulateGrad (leaf x (1,) torch.float32)"
    )


def test_detail_tree_shows_shapes_dtypes_and_saved_bytes():
    x = torch.tensor([1.0], requires_grad=True)
    y = x**2 + x * 3
    assert describe(y, params={"x": x}, detail=True) == (
        "AddBackward0 -> (1,) float32\n"
        "├── PowBackward0 -> (1,) float32, saved 4 B: self (1,), other=2\n"
        "│   AccumulateGrad: x (1,) float32\n"
        "└── MulBackward0 -> (1,) float32, saved 0 B: other=3\n"
        "    AccumulateGrad: x (seen above)\n"
        "saved tensors: 4 B in 1 buffer"
    )


def test_shared_subgraph_is_expanded_once():
    w = torch.randn(4, 3, requires_grad=True)
    h = (torch.randn(5, 4) @ w).relu()
    # h is saved by relu (its output) and twice by mul: one buffer, charged to relu
    assert describe((h * h).sum(), params={"w": w}, detail=True) == (
        "SumBackward0 -> () float32\n"
        "MulBackward0 -> (5, 3) float32, saved 0 B: other (5, 3) (counted at ReluBackward0), "
        "self (5, 3) (counted at ReluBackward0)\n"
        "├── ReluBackward0 -> (5, 3) float32, saved 60 B: result (5, 3)\n"
        "│   MmBackward0 -> (5, 3) float32, saved 80 B: self (5, 4)\n"
        "│   AccumulateGrad: w (4, 3) float32\n"
        "└── ReluBackward0 (seen above)\n"
        "saved tensors: 140 B in 2 buffers"
    )


def test_print_graph_prints_the_tree(capsys):
    x = torch.ones(2, dtype=torch.float64, requires_grad=True)
    print_graph(x.exp().sum(), {"x": x})
    assert capsys.readouterr().out == (
        "SumBackward0 -> () float64\n"
        "ExpBackward0 -> (2,) float64, saved 16 B: result (2,)\n"
        "AccumulateGrad: x (2,) float64\n"
        "saved tensors: 16 B in 1 buffer\n"
    )


def test_describe_writes_to_file():
    x = torch.ones(2, requires_grad=True)
    out = io.StringIO()
    text = describe(x.sum(), out)
    assert out.getvalue() == text + "\n"


def test_tree_of_leaf_and_of_tensor_without_graph():
    x = torch.ones(2, requires_grad=True)
    assert describe(x, detail=True).splitlines()[0] == "AccumulateGrad: leaf (2,) float32"
    assert describe(torch.ones(2), detail=True).splitlines()[0] == (
        "(no graph: the tensor does not require grad)"
    )


def test_tree_after_backward_says_which_pass_freed_the_buffers():
    x = torch.ones(2, requires_grad=True)
    y = x.exp().sum()
    y.backward()
    lines = describe(y, detail=True).splitlines()
    assert lines[1].startswith("ExpBackward0 -> (2,) float32, saved: freed by backward pass #")
    assert lines[-1] == "saved tensors: 0 B in 0 buffers"


def test_multi_output_node_saves_values_and_indices():
    x = torch.randn(3, 4, requires_grad=True)
    values, _ = x.max(dim=1)
    line = describe(values.sum(), detail=True).splitlines()[1]
    # values float32 (12 B) and indices int64 (24 B)
    assert line == "MaxBackward0 -> (3,) float32, saved 36 B: result0 (3,), result1 (3,)"


def test_custom_function_saved_tensors_are_counted():
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return 2 * a * g

    x = torch.randn(3, 4, requires_grad=True)
    y = Square.apply(x).sum()
    assert saved_bytes(y) == 48
    assert "SquareBackward -> (3, 4) float32, saved 48 B: saved_tensors[0] (3, 4)" in describe(
        y, detail=True
    )


def test_inplace_through_view_counts_the_inner_node():
    b = torch.randn(3, 4, requires_grad=True) * 1
    w = torch.ones(2, requires_grad=True)
    b[0, :2].mul_(w)
    assert (
        describe(b.sum(), detail=True)
        .splitlines()[1]
        .startswith("torch::autograd::CopySlices -> (3, 4) float32, saved 16 B")
    )
    assert saved_bytes(b.sum()) == 16


# ---- saved_bytes ----------------------------------------------------------------------------
def test_frozen_weight_saves_no_input():
    x = torch.randn(5, 4)
    w = torch.randn(4, 3, requires_grad=True)
    assert saved_bytes(x @ w) == x.nbytes  # w's gradient needs x
    x_grad = torch.randn(5, 4, requires_grad=True)
    frozen = torch.randn(4, 3)
    assert saved_bytes(x_grad @ frozen) == frozen.nbytes  # x's gradient needs W, never x
    assert saved_bytes(x @ frozen) == 0  # nothing requires grad: no graph at all


def test_frozen_backbone_saves_only_the_head_input():
    x = torch.randn(8, 4)
    w1 = torch.randn(4, 6)
    w2 = torch.randn(6, 2, requires_grad=True)
    frozen = saved_bytes(((x @ w1).relu() @ w2).sum())
    assert frozen == 8 * 6 * 4  # the head's input h, for w2's gradient
    w1.requires_grad_(True)
    trainable = saved_bytes(((x @ w1).relu() @ w2).sum())
    # x for w1, relu's output h (shared with the head's input), and w2 for h's gradient
    assert trainable == x.nbytes + 8 * 6 * 4 + w2.nbytes


def test_buffer_saved_by_several_nodes_counts_once():
    x = torch.randn(10, requires_grad=True)
    y = x.exp()
    z = (y * y).sum() + (y * 2).sum()
    assert saved_bytes(z) == 40  # y's buffer: saved by exp (result) and mul (both operands)


def test_saved_view_counts_its_base_once():
    base = torch.randn(4, 3)
    w = torch.randn(3, requires_grad=True)
    out = (w * base[0]).sum() + (w * base).sum()
    assert saved_bytes(out) == base.nbytes


def test_saved_bytes_per_node_adds_up_to_total():
    w = torch.randn(4, 3, requires_grad=True)
    h = (torch.randn(5, 4) @ w).relu()
    loss = (h * h).sum()
    per_node = saved_bytes(loss, by="node")
    assert sorted(n.name() for n in per_node) == ["MmBackward0", "ReluBackward0"]
    assert sum(per_node.values()) == saved_bytes(loss) == 80 + 60


def test_saved_bytes_per_module():
    x = torch.randn(5, 4)
    w1 = torch.randn(4, 3, requires_grad=True)
    w2 = torch.randn(3, 2, requires_grad=True)
    with record_modules():
        with module_scope("backbone"):
            h = (x @ w1).tanh()
        with module_scope("head"):
            out = h @ w2
    loss = out.sum() * 2
    assert saved_bytes(loss, by="module") == {"backbone": 80 + 60, "head": 24}
    assert out.grad_fn.metadata["module"] == "head"
    assert sum(saved_bytes(loss, by="module").values()) == saved_bytes(loss)


def test_saved_bytes_after_backward_is_zero():
    x = torch.randn(3, requires_grad=True)
    y = x.sigmoid().sum()
    assert saved_bytes(y) == 12
    y.backward()
    assert saved_bytes(y) == 0


def test_saved_bytes_rejects_unknown_grouping():
    with pytest.raises(ValueError, match="by must be None, 'node' or 'module'"):
        saved_bytes(torch.ones(1, requires_grad=True) * 2, by="layer")


# ---- deep graphs (see Note [Deep graphs in text]) -------------------------------------------
def test_compact_lines_past_the_indent_cap_say_their_depth(monkeypatch):
    monkeypatch.setattr(inspect_graph, "MAX_INDENT", 2)
    x = torch.ones(1, requires_grad=True)
    assert describe(x.neg().neg().neg()) == (
        "NegBackward0\n"
        "  NegBackward0\n"
        "    NegBackward0\n"
        "    [depth 3] torch::autograd::AccumulateGrad (leaf (1,) torch.float32)"
    )


def test_tree_branches_past_the_indent_cap_say_their_level(monkeypatch):
    monkeypatch.setattr(inspect_graph, "MAX_INDENT", 1)
    x = torch.ones(1, requires_grad=True)
    w = torch.ones(1, requires_grad=True)
    mul = "MulBackward0 -> (1,) float32, saved 4 B: other (1,) (counted at MulBackward0), self (1,)"
    assert describe(x * w * w * w, params={"x": x, "w": w}, detail=True) == (
        f"{mul}\n"
        f"├── {mul}\n"
        "│   ├── MulBackward0 -> (1,) float32, saved 8 B: other (1,), self (1,)\n"
        "│   [depth 2] ├── AccumulateGrad: x (1,) float32\n"
        "│   [depth 2] └── AccumulateGrad: w (1,) float32\n"
        "│   └── AccumulateGrad: w (seen above)\n"
        "└── AccumulateGrad: w (seen above)\n"
        "saved tensors: 16 B in 4 buffers"
    )


def test_tree_of_a_deep_branching_chain_stays_linear():
    # Every MulBackward0 branches (into the chain and the leaf w): without the cap, the lines
    # of the k-th node would be indented by 4k characters.
    w = torch.ones(3, requires_grad=True)
    y = torch.ones(3, requires_grad=True)
    n = 3000
    for _ in range(n):
        y = y * w
    lines = describe(y, detail=True).splitlines()
    assert len("\n".join(lines).encode()) < 400 * n  # ~18 KB a node if indented by depth
    pad = "│   " * inspect_graph.MAX_INDENT
    assert lines[n] == pad + f"[depth {n - 1}] ├── AccumulateGrad: leaf (3,) float32"
    assert lines[-2] == "└── AccumulateGrad: leaf (seen above)"


DEEP = 100_000


@pytest.fixture(scope="module")
def deep_chain():
    y = torch.ones(1, requires_grad=True)
    for _ in range(DEEP):
        y = y.sin()  # saves its 4-byte input
    return y


def test_describe_of_a_100k_op_chain_is_linear_and_marks_depth(deep_chain):
    text = describe(deep_chain)  # iterative: no RecursionError at any depth
    assert len(text.encode()) < 100 * DEEP  # indented by depth, it would be 10 GB
    lines = text.splitlines()
    assert len(lines) == DEEP + 1
    pad = "  " * inspect_graph.MAX_INDENT
    assert lines[inspect_graph.MAX_INDENT] == pad + "SinBackward0"
    assert lines[inspect_graph.MAX_INDENT + 1] == (
        pad + f"[depth {inspect_graph.MAX_INDENT + 1}] SinBackward0"
    )
    assert lines[-1] == (
        pad + f"[depth {DEEP}] torch::autograd::AccumulateGrad (leaf (1,) torch.float32)"
    )


def test_saved_bytes_of_a_100k_op_chain(deep_chain):
    assert saved_bytes(deep_chain) == 4 * DEEP
    per_node = saved_bytes(deep_chain, by="node")
    assert len(per_node) == DEEP and set(per_node.values()) == {4}
