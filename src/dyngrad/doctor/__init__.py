"""The doctor: a runtime linter for training loops (`watch()`, `python -m dyngrad doctor`)."""

from __future__ import annotations

from .findings import HINTS, KINDS, Finding, Report
from .gradflow import GradFlowRow, grad_flow, plot_grad_flow, print_grad_flow
from .session import watch, watching

__all__ = [
    "watch",
    "watching",
    "Finding",
    "Report",
    "KINDS",
    "HINTS",
    "grad_flow",
    "print_grad_flow",
    "plot_grad_flow",
    "GradFlowRow",
]
