"""Why a graph breaks: each kind of break with PyTorch 2.13's reason text (first lines)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Reason", "branching", "item", "tolist", "data_dependent", "builtin", "user_break"]

_SITE = "https://meta-pytorch.github.io/compile-graph-break-site/gb/"
ITEM = "gb0124"  # the code of an `.item()` break (PyTorch also warns of the first one)


@dataclass(frozen=True)
class Reason:
    """A break kind: `title` is PyTorch's first sentence (what fullgraph raises with)."""

    title: str
    explanation: str
    hints: tuple = ()
    code: str = ""
    # explain() names data-dependent branching by Dynamo's internal instruction, not its title
    explain_title: str = ""

    def text(self, *, for_explain: bool = False) -> str:
        """The reason as PyTorch prints it: title, explanation, hints, the page about it."""
        if for_explain and self.explain_title:
            return self.explain_title
        lines = [self.title, f"  Explanation: {self.explanation}"]
        lines += [f"  Hint: {h}" for h in self.hints]
        if self.code:
            lines += [
                "",
                f" For more details about this graph break, please visit: {_SITE}{self.code}.html",
            ]
        return "\n".join(lines)


def branching() -> Reason:
    return Reason(
        "Data-dependent branching",
        "Detected data-dependent branching (e.g. `if my_tensor.sum() > 0:`). "
        "Dynamo does not support tracing dynamic control flow.",
        (
            "This graph break is fundamental - it is unlikely that Dynamo will ever be able "
            "to trace through your code. Consider finding a workaround.",
            "Use `torch.cond` to express dynamic control flow.",
        ),
        "gb0170",
        explain_title="generic_jump TensorVariable()",
    )


def item() -> Reason:
    return Reason(
        "Unsupported Tensor.item() call with capture_scalar_outputs=False",
        "Dynamo does not support tracing `Tensor.item()` with config.capture_scalar_outputs=False.",
        (
            "Set `torch._dynamo.config.capture_scalar_outputs = True` or "
            "`export TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS=1` to include these operations in "
            "the captured graph.",
        ),
        ITEM,
    )


def tolist() -> Reason:
    return Reason(
        "Tensor.tolist() with non-integer tensor",
        "Dynamo currently does not support tracing `tolist()` on non-integer tensors.",
        (
            "Ensure the input tensor to `tolist()` is an integer type "
            "(e.g., int8, int16, int32, int64).",
        ),
        "gb0263",
    )


def data_dependent() -> Reason:
    return Reason(
        "Data dependent operator",
        "Operator `aten._local_scalar_dense.default` has a non-Tensor output whose value is "
        "dependent on the data of Tensor inputs.",
        (),
        "gb0033",
    )


def builtin(name: str, arg_types: list) -> Reason:
    return Reason(
        "Failed to trace builtin operator",
        f"Dynamo does not know how to trace builtin operator `{name}` with argument types "
        f"{arg_types} (has_kwargs False)",
        (
            f"Avoid calling builtin `{name}` with argument types {arg_types}. Consider using "
            f"an equivalent alternative function/method to `{name}`.",
            "If you are attempting to call a logging function (e.g. `print`), you can try "
            "adding it to `torch._dynamo.config.reorderable_logging_functions`.",
        ),
        "gb0059",
    )


def user_break(msg: str | None) -> Reason:
    return Reason(
        "Call to `torch._dynamo.graph_break()`",
        f"User-inserted graph break. Message: {msg}",
        ("Remove the `torch._dynamo.graph_break()` call.",),
        "gb0025",
    )
