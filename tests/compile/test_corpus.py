"""The corpus (corpus.py) explained by dyngrad gives PyTorch's graphs, breaks and break lines:
against the figures torch 2.13 reported (always), and against the real torch (when installed)."""

import contextlib
import io

import pytest

import dyngrad

from . import corpus

CASES = corpus.load(dyngrad)


def explained(lib, name: str) -> tuple:
    """(graph_count, graph_break_count, (line, frame name) per break, reasons' first lines)."""
    f, make = corpus.load(lib)[name] if lib is not dyngrad else CASES[name]
    if lib is not dyngrad:
        lib._dynamo.reset()
    target = f() if isinstance(f, type) else f
    with contextlib.redirect_stdout(io.StringIO()):
        out = lib._dynamo.explain(target)(*make())
    # the user's frames only: in the full suite torch's stack for Outer once held a frame
    # outside corpus.py (global state left by earlier tests; not seen when run alone)
    here = str(corpus.HERE)
    return (
        out.graph_count,
        out.graph_break_count,
        [
            [(s.lineno, s.name) for s in reason.user_stack if s.filename == here]
            for reason in out.break_reasons
        ],
        [reason.reason.splitlines()[0] for reason in out.break_reasons],
    )


@pytest.mark.parametrize("name", sorted(CASES))
def test_corpus_matches_torch_2_13(name):
    # the table below is what torch 2.13 printed for corpus.py as it stands; lines move with it
    assert explained(dyngrad, name) == TORCH_2_13[name]


@pytest.mark.parametrize("name", sorted(CASES))
def test_corpus_matches_installed_torch(name):
    torch = pytest.importorskip("torch")
    if not torch.__version__.startswith("2.13"):
        pytest.skip("the corpus is pinned to torch 2.13's Dynamo")
    assert explained(dyngrad, name) == explained(torch, name)


def test_corpus_covers_forty_cases():
    assert len(CASES) >= 40 and set(CASES) == set(TORCH_2_13)


# what torch 2.13's explain reported for each case (graph count, break count, break sites, first lines)
TORCH_2_13 = {
    "no_break": (1, 0, [], []),
    "branch": (2, 1, [[(25, "branch")]], ["generic_jump TensorVariable()"]),
    "branch_twice": (
        3,
        2,
        [[(31, "branch_twice")], [(33, "torch_dynamo_resume_in_branch_twice_at_31")]],
        ["generic_jump TensorVariable()", "generic_jump TensorVariable()"],
    ),
    "print_mid": (2, 1, [[(39, "print_mid")]], ["Failed to trace builtin operator"]),
    "print_first": (1, 0, [], []),
    "print_last": (1, 0, [[(48, "print_last")]], ["Failed to trace builtin operator"]),
    "print_tensor": (2, 1, [[(53, "print_tensor")]], ["Failed to trace builtin operator"]),
    "item_mid": (
        2,
        1,
        [[(57, "item_mid")]],
        ["Unsupported Tensor.item() call with capture_scalar_outputs=False"],
    ),
    "item_twice": (
        3,
        2,
        [[(62, "item_twice")], [(64, "item_twice")]],
        [
            "Unsupported Tensor.item() call with capture_scalar_outputs=False",
            "Unsupported Tensor.item() call with capture_scalar_outputs=False",
        ],
    ),
    "float_of": (
        2,
        1,
        [[(68, "float_of")]],
        ["Unsupported Tensor.item() call with capture_scalar_outputs=False"],
    ),
    "int_of": (
        2,
        1,
        [[(72, "int_of")]],
        ["Unsupported Tensor.item() call with capture_scalar_outputs=False"],
    ),
    "tolist_float": (2, 1, [[(77, "tolist_float")]], ["Tensor.tolist() with non-integer tensor"]),
    "tolist_only": (0, -1, [], []),
    "tolist_int": (2, 1, [[(85, "tolist_int")]], ["Data dependent operator"]),
    "numpy_call": (1, 0, [], []),
    "str_of": (2, 1, [[(95, "str_of")]], ["Failed to trace builtin operator"]),
    "user_break": (2, 1, [[(100, "user_break")]], ["Call to `torch._dynamo.graph_break()`"]),
    "nested_break": (
        4,
        3,
        [[(110, "nested_break"), (105, "helper")], [(105, "helper")]],
        ["Failed to trace builtin operator", "Failed to trace builtin operator"],
    ),
    "nested_clean": (1, 0, [], []),
    "nested_deep": (
        6,
        5,
        [
            [(124, "nested_deep"), (120, "deep_helper"), (105, "helper")],
            [(120, "deep_helper"), (105, "helper")],
            [(105, "helper")],
        ],
        [
            "Failed to trace builtin operator",
            "Failed to trace builtin operator",
            "Failed to trace builtin operator",
        ],
    ),
    "loop_break": (0, -1, [], []),
    "loop_clean": (1, 0, [], []),
    "loop_header_break": (
        2,
        1,
        [[(139, "loop_header_break")]],
        ["Unsupported Tensor.item() call with capture_scalar_outputs=False"],
    ),
    "while_break": (2, 1, [[(145, "while_break")]], ["generic_jump TensorVariable()"]),
    "no_grad_mid": (2, 1, [[(153, "no_grad_mid")]], ["Failed to trace builtin operator"]),
    "no_grad_clean": (1, 0, [], []),
    "enable_grad_inside": (1, 0, [], []),
    "shape_logic": (1, 0, [], []),
    "return_tuple": (1, 0, [], []),
    "python_scalar_math": (1, 0, [], []),
    "break_then_branch": (
        2,
        1,
        [[(181, "break_then_branch")], [(182, "torch_dynamo_resume_in_break_then_branch_at_181")]],
        ["Call to `torch._dynamo.graph_break()`", "generic_jump TensorVariable()"],
    ),
    "any_branch": (2, 1, [[(187, "any_branch")]], ["generic_jump TensorVariable()"]),
    "disabled_helper_caller": (
        2,
        1,
        [[(192, "disabled_helper_caller")]],
        ["Skip calling `torch.compiler.disable()`d function"],
    ),
    "two_items_no_ops_between": (
        3,
        2,
        [[(199, "two_items_no_ops_between")], [(200, "two_items_no_ops_between")]],
        [
            "Unsupported Tensor.item() call with capture_scalar_outputs=False",
            "Unsupported Tensor.item() call with capture_scalar_outputs=False",
        ],
    ),
    "autocast_clean": (1, 0, [], []),
    "autocast_break": (2, 1, [[(211, "autocast_break")]], ["Failed to trace builtin operator"]),
    "grad_mode_break": (
        2,
        1,
        [[(218, "grad_mode_break")]],
        ["Unsupported Tensor.item() call with capture_scalar_outputs=False"],
    ),
    "Branchy": (2, 1, [[(230, "forward")]], ["generic_jump TensorVariable()"]),
    "Clean": (1, 0, [], []),
    "Outer": (
        4,
        3,
        [[(256, "forward"), (246, "forward")], [(246, "forward")]],
        ["Failed to trace builtin operator", "Failed to trace builtin operator"],
    ),
    "Hooked": (1, 0, [], []),
    "ItemModule": (
        2,
        1,
        [[(275, "forward")]],
        ["Unsupported Tensor.item() call with capture_scalar_outputs=False"],
    ),
    "Seq": (3, 2, [[(246, "forward")]], ["Failed to trace builtin operator"]),
}
