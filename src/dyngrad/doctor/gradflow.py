"""Gradient flow per parameter: a table (norm, mean, max, share of zeros) and the bar plot
people copy from forums, drawn with matplotlib."""

from __future__ import annotations

import sys
from typing import NamedTuple

import numpy as np

__all__ = ["GradFlowRow", "grad_flow", "print_grad_flow", "plot_grad_flow"]


class GradFlowRow(NamedTuple):
    """One parameter's gradient: None everywhere when it has no gradient."""

    name: str
    shape: tuple
    norm: float | None
    mean: float | None  # of |grad|
    max: float | None  # of |grad|
    zeros: float | None  # share of exact zeros


def grad_flow(named_parameters) -> list[GradFlowRow]:
    """One row per parameter that requires grad, in order (*dyngrad only*).

    >>> rows = dyngrad.doctor.grad_flow(model.named_parameters())
    """
    rows = []
    for name, p in named_parameters:
        if not p.requires_grad:
            continue
        shape = tuple(p.shape)
        grad = p._grad
        if grad is None:
            rows.append(GradFlowRow(name, shape, None, None, None, None))
            continue
        g = np.abs(np.asarray(grad._data, dtype=np.float64)).reshape(-1)
        if g.size == 0:
            rows.append(GradFlowRow(name, shape, 0.0, 0.0, 0.0, 0.0))
            continue
        rows.append(
            GradFlowRow(
                name,
                shape,
                float(np.sqrt(np.dot(g, g))),
                float(g.mean()),
                float(g.max()),
                float(np.count_nonzero(g == 0) / g.size),
            )
        )
    return rows


def print_grad_flow(named_parameters, file=None) -> str:
    """Print the gradient-flow table (of `named_parameters` or of `grad_flow` rows)."""
    rows = list(named_parameters)
    if rows and not isinstance(rows[0], GradFlowRow):
        rows = grad_flow(rows)
    name_w = max([len("parameter")] + [len(r.name) for r in rows])
    shape_w = max([len("shape")] + [len(str(r.shape)) for r in rows])
    lines = [
        f"{'parameter':<{name_w}}  {'shape':<{shape_w}}  {'norm':>9}  {'mean|g|':>9}  "
        f"{'max|g|':>9}  {'zeros':>6}"
    ]
    for r in rows:
        if r.norm is None:
            lines.append(f"{r.name:<{name_w}}  {str(r.shape):<{shape_w}}  {'no grad':>9}")
            continue
        lines.append(
            f"{r.name:<{name_w}}  {str(r.shape):<{shape_w}}  {r.norm:>9.3g}  "
            f"{r.mean:>9.3g}  {r.max:>9.3g}  {r.zeros:>6.1%}"
        )
    text = "\n".join(lines)
    print(text, file=file or sys.stdout)
    return text


def plot_grad_flow(named_parameters, path: str, title: str = "Gradient flow") -> str:
    """Save a bar plot of each parameter's max and mean |grad| to `path` (a PNG).

    Needs matplotlib (`pip install dyngrad[plot]`). Parameters without a gradient are marked
    in red; the scale is logarithmic so that vanishing layers stay visible.
    """
    plt = _pyplot()
    rows = grad_flow(named_parameters)
    names = [r.name for r in rows]
    tiny = 1e-12  # log scale: an exact zero is drawn at the bottom
    means = [max(r.mean, tiny) if r.mean is not None else tiny for r in rows]
    maxes = [max(r.max, tiny) if r.max is not None else tiny for r in rows]
    width = max(6.0, 0.45 * len(rows) + 2)
    fig, ax = plt.subplots(figsize=(width, 4.2), dpi=80)
    x = np.arange(len(rows))
    ax.bar(x, maxes, alpha=0.35, lw=1, color="c", label="max |grad|")
    ax.bar(x, means, alpha=0.9, lw=1, color="b", label="mean |grad|")
    for i, r in enumerate(rows):
        if r.norm is None:
            ax.text(i, tiny * 10, "no grad", color="red", rotation=90, ha="center", va="bottom")
    ax.set_yscale("log")
    ax.set_xticks(x)
    ax.set_xticklabels(names, rotation=60, ha="right", fontsize=8)
    ax.set_xlim(-0.75, len(rows) - 0.25)
    ax.set_ylabel("|gradient|")
    ax.set_title(title)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise ImportError(
            "dyngrad.doctor.plot_grad_flow needs matplotlib: pip install dyngrad[plot] "
            "(or pip install matplotlib)"
        ) from None
    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt
