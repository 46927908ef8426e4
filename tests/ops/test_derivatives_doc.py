"""docs/derivatives.md is the op table: regenerated, it is unchanged."""

from __future__ import annotations

import os
from pathlib import Path

import dyngrad  # noqa: F401 - loads every op family into the table
from dyngrad.ops.table.derivatives import render

DOC = Path(__file__).resolve().parents[2] / "docs" / "derivatives.md"


def test_the_document_is_the_table():
    text = render()
    if os.environ.get("DYNGRAD_WRITE_DERIVATIVES_DOC"):
        DOC.write_text(text)
    assert DOC.read_text() == text, (
        "docs/derivatives.md is stale: regenerate it with "
        "`python -m dyngrad.ops.table.derivatives > docs/derivatives.md`"
    )


def test_every_formula_is_shown_as_written():
    text = render()
    assert "<lambda>" not in text
    line = next(row for row in text.splitlines() if row.startswith("| `mul` "))
    assert line == (
        "| `mul` | MulBackward0 | y, x | **x**: `lambda g, y: g * conjugate(y)`<br>"
        "**y**: `lambda g, x: g * conjugate(x)` |"
    )
