"""The op table as one readable table, like PyTorch's derivatives.yaml: docs/derivatives.md.

`render()` lists every row: its node name, what it saves when every input needs a gradient,
and each input's backward formula as written in the source. A test keeps the document equal
to `render()`; regenerate it with `python -m dyngrad.ops.derivatives > docs/derivatives.md`.
"""

from __future__ import annotations

import ast
import functools
import inspect
import re

from ..foreach import refused as _foreach_rows  # noqa: F401 - loaded on first use elsewhere
from .registry import OPS

__all__ = ["render"]

_HEADER = """# Derivatives

Every row of dyngrad's op table: the backward node it records, what that node saves when
every input requires grad (`out` is the op's own output), and each input's formula, written
with Tensor ops so that `create_graph=True` differentiates the formulas themselves. Formulas
read `g` (the output's gradient), the inputs by name, `out`, the op's attributes and
`<input>_shape`; the engine sums each gradient back to its input's shape. Rows without a
node record no history (their outputs are not differentiable). Ops not listed here are
composites of these rows (`sub` is `add` with `alpha=-1`, `linear` is `addmm` or `matmul`
then `add`, ...).

This file is generated from the table by `python -m dyngrad.ops.derivatives`; a test fails
when it is stale.

| op | node | saves | formulas |
|---|---|---|---|
"""


def render() -> str:
    """The document: a header and one table line per op row, sorted by op name."""
    lines = [_HEADER.rstrip("\n")]
    for name in sorted(OPS):
        lines.append(_row(OPS[name]))
    return "\n".join(lines) + "\n"


def _row(op) -> str:
    node = op.node_name if op.records else "—"
    full = (1 << len(op.inputs)) - 1
    saved = [n for n, _ in op.plans[full]] if not op.variadic else []
    formulas = []
    for inp, formula in zip(op.inputs, op.formulas):
        if formula is not None:
            formulas.append(f"**{inp}**: `{_source(formula[0])}`")
    if op.variadic and op.formulas and op.formulas[0] is not None:
        formulas = [f"**each of {op.inputs[0]}**: `{_source(op.formulas[0][0])}`"]
    cells = [f"`{op.name}`", node, ", ".join(saved) or "—", "<br>".join(formulas) or "—"]
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def _source(fn) -> str:
    """A formula's text: the lambda's body, or a named function's name."""
    params = tuple(inspect.signature(fn).parameters)
    if fn.__name__ != "<lambda>":
        return f"{fn.__name__}({', '.join(params)})"
    found = _lambda_text(fn, params)
    return _one_line(found) if found else "<lambda>"


def _one_line(text: str) -> str:
    # a formula the formatter wrapped over lines, as it would read on one
    text = " ".join(text.split())
    text = re.sub(r"([(\[{]) ", r"\1", text)
    text = re.sub(r",? ([)\]}])", r"\1", text)
    return text


@functools.cache
def _module_tree(path: str):
    with open(path, encoding="utf-8") as f:
        source = f.read()
    return source, ast.parse(source)


def _lambda_text(fn, params: tuple) -> str | None:
    # the lambda in the defining file that starts on the function's line, takes its
    # parameters and reads the same names (two lambdas may share a line)
    try:
        source, tree = _module_tree(inspect.getsourcefile(fn))
    except (OSError, TypeError, SyntaxError):
        return None
    line = fn.__code__.co_firstlineno
    bodies = [
        ast.get_source_segment(source, node.body)
        for node in ast.walk(tree)
        if isinstance(node, ast.Lambda)
        and node.lineno == line
        and tuple(a.arg for a in node.args.args) == params
    ]
    if len(bodies) > 1:
        bodies = [b for b in bodies if _same_code(b, params, fn)]
    return f"lambda {', '.join(params)}: {bodies[0]}" if bodies else None


def _same_code(body: str, params: tuple, fn) -> bool:
    # two lambdas on a line may take the same parameters: compare the names they read
    try:
        code = compile(f"lambda {', '.join(params)}: {body}", "<formula>", "eval")
    except SyntaxError:
        return False
    inner = code.co_consts[0]
    return inner.co_names == fn.__code__.co_names and inner.co_consts == fn.__code__.co_consts


if __name__ == "__main__":
    import dyngrad  # noqa: F401 - loads every op family into the table

    print(render(), end="")
