"""Backward passes under the doctor: a second backward, in-place changes to saved tensors,
retained graphs that grow, graphs kept alive in containers, exploding and vanishing
gradients, and where each gradient started accumulating (for missing zero_grad)."""

from __future__ import annotations

import math
import re

import numpy as np

from ..autograd.observers import EngineObserver, observers
from ..graph.node import SECOND_BACKWARD, AccumulateGrad
from ..ops.table import record
from . import kept
from .ops import _finite
from .sites import user_site

__all__ = ["install"]

EXPLODE_NORM = 1e6  # a gradient norm this large is exploding whatever it started from
EXPLODE_GROWTH = 1e3  # ... and so is one this many times its first value
VANISH_RATIO = 1e-3  # the first layer's gradient norm over the last layer's


# Note [Observed backward passes]
# A non-finite gradient is pinned to the backward formula that made it by observing the ops
# of backward formulas (ops.observe), which makes them run as Tensor ops instead of their
# array kernels (Note [Array backwards]): two to three times slower backward passes. Such
# bugs (sqrt or log at 0, a division by a zero norm) show at the first backward, so the
# first OBSERVED_PASSES passes are observed, and later ones keep their kernels and only
# check the gradients reaching the leaves; one that is non-finite turns observation back on
# for the next passes, and if none of them pins it (the step already spread NaN into the
# weights), the finding names that backward's line (`finish`).
OBSERVED_PASSES = 3


class _BackwardWatcher(EngineObserver):
    """The doctor's view of backward passes, through the engine's declared observer events
    (See Note [Engine observers]). Nested passes (a backward inside a custom backward, the
    doctor's own work) are not watched on their own."""

    def __init__(self, session) -> None:
        self.session = session
        self.watched: list = []  # per running pass (passes nest): whether it is watched

    def pass_started(self, task, roots) -> None:
        session = self.session
        watched = not (session.busy or session.in_backward)
        self.watched.append(watched)
        if not watched:
            return
        site = user_site()
        session.backward_site = site
        session.passes += 1
        session.new_boundary()
        _scan(session, _walk(roots), roots, site, task.keep_graph)
        kept.check_kept(session, roots)
        session.in_backward += 1

    def pass_finished(self, task) -> None:
        if self.watched.pop():
            session = self.session
            session.in_backward -= 1
            _check_gradients(session, session.backward_site)
            if session.passes >= OBSERVED_PASSES and session.nonfinite_grad is None:
                record.observe_backward = False  # See Note [Observed backward passes]

    def pass_failed(self, task, exc) -> None:
        if self.watched.pop():
            session = self.session
            session.in_backward -= 1
            if isinstance(exc, RuntimeError):
                session.backward_failed = True
                _explain(session, exc, session.backward_site)

    def leaf_accumulating(self, variable, grad) -> None:
        session = self.session
        if not session.busy:
            state = session.param(variable)
            current = variable._grad
            if current is None or not current._data.any():
                state.start = state.steps  # See Session.param_step
            state.got_grad = True
            if not record.observe_backward and not _finite(grad._data):
                record.observe_backward = True  # See Note [Observed backward passes]
                session.nonfinite_grad = (session.backward_site, tuple(variable.shape))


def install(session, patcher) -> None:
    watcher = _BackwardWatcher(session)
    observers.add(watcher)
    patcher.on_restore(lambda: observers.remove(watcher))


def _walk(roots) -> list:
    stack = [node for node, _ in roots if node is not None]
    seen = {id(node) for node in stack}
    nodes = []
    while stack:
        node = stack.pop()
        nodes.append(node)
        for child, _ in node.next_functions:
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                stack.append(child)
    return nodes


def _scan(session, nodes: list, roots, site, keep_graph: bool) -> None:
    """Mark what this backward uses: model outputs, no_grad cuts, carried graphs."""
    pending, marked, carried, cuts = (
        session.pending,
        session.marked_nodes,
        session.carried,
        session.cuts,
    )
    size, oldest, leaves = 0, math.inf, 0
    for node in nodes:
        key = id(node)
        record = pending.get(key)
        if record is not None:
            record.use(session.passes)
        mark = marked.get(key)
        if mark is not None:
            for cut_site in mark[1]:
                if cut_site in cuts:
                    cuts[cut_site].flowed = True
        if type(node) is AccumulateGrad:
            leaves += 1
        else:
            size += 1
            oldest = min(oldest, node._seq)
            if keep_graph and key in carried:
                carried[key][1] = True  # reported as retain-graph-growth, not graph-growth
    if keep_graph:
        _check_retained(session, site, size, oldest)
    if leaves <= sum(type(node) is AccumulateGrad for node, _ in roots):
        session.disconnected = True  # See Note [Logged cuts]


def _check_retained(session, site, size: int, oldest) -> None:
    previous = session.retained.get(site)
    streak = 0
    if previous is not None and oldest < previous[0] and size > previous[1]:
        streak = previous[2] + 1
    session.retained[site] = (session.boundary, size, streak)
    if streak >= 2:
        session.report.add(
            "retain-graph-growth",
            site,
            f"backward(retain_graph=True) goes through a graph that grows every iteration "
            f"({size} nodes now): each iteration's graph is kept alive and linked to the next",
        )


def _explain(session, exc: RuntimeError, site) -> None:
    text = str(exc)
    if text.startswith(SECOND_BACKWARD):
        detail = text[len(SECOND_BACKWARD) :].strip().replace("[dyngrad] ", "")
        session.report.add(
            "backward-twice",
            site,
            "backward through a graph whose saved tensors an earlier backward already freed"
            + (f". {detail}" if detail else ""),
        )
    elif "modified by an inplace operation" in text:
        found = re.search(
            r"saved this tensor .*?\. It was last modified by (\S+) at (.+):(\d+)\.", text
        )
        where = (found.group(2), int(found.group(3))) if found else site
        op = f"`{found.group(1)}`" if found else "an in-place op"
        session.report.add(
            "inplace-saved",
            where,
            f"{op} modifies in place a tensor that the graph saved for backward; the "
            f"backward at line {site[1] if site else '?'} then fails",
        )


# ---- gradient norms -------------------------------------------------------------------


def _check_gradients(session, site) -> None:
    for state in list(session.models.values()):
        module = state.module
        if state.used_pass != session.passes:
            continue
        if state.named is None:
            state.named = list(module.named_parameters())
        norms = [(name, p, _norm(p._grad._data)) for name, p in state.named if p._grad is not None]
        if norms:
            _check_explode(session, state, site, norms)
            _check_vanish(session, state, site, norms)


def _norm(array) -> float:
    flat = array.reshape(-1)
    return float(np.sqrt(np.dot(flat, flat)))


def _check_explode(session, state, site, norms) -> None:
    total = math.sqrt(sum(n * n for _, _, n in norms))
    if not math.isfinite(total):
        return
    if state.first_norm is None:
        state.first_norm = total
    state.norm_passes += 1
    grown = state.norm_passes >= 3 and total >= 10 and total >= EXPLODE_GROWTH * state.first_norm
    if total >= EXPLODE_NORM or grown:
        session.report.add(
            "grad-explode",
            site,
            f"the gradient norm of {state.label} is {total:.3g} (it was {state.first_norm:.3g} "
            "at the first backward): gradients are exploding",
        )


def _check_vanish(session, state, site, norms) -> None:
    weights = [(name, n) for name, p, n in norms if p.ndim >= 2]
    if len(weights) < 3 or not weights[-1][1] > 0:
        return
    (first, low), (last, high) = weights[0], weights[-1]
    if low < VANISH_RATIO * high:
        state.vanish_streak += 1
    else:
        state.vanish_streak = 0
    if state.vanish_streak >= 2:
        session.report.add(
            "grad-vanish",
            site,
            f"the gradient of the first layer ({first}: norm {low:.2g}) is {low / high:.1g} "
            f"times the last layer's ({last}: norm {high:.2g}): early layers barely train",
        )


def finish(session) -> None:
    """A non-finite gradient that no observed backward pinned: name its backward."""
    if session.nonfinite_grad is None or "nonfinite" in session.report.kinds():
        return
    site, shape = session.nonfinite_grad
    session.report.add(
        "nonfinite",
        site,
        f"this backward produced a non-finite gradient (first seen for a parameter of shape "
        f"{shape}) from a finite forward; run again under the doctor from an earlier step, or "
        "with torch.autograd.set_detect_anomaly(True), to name the backward op",
    )
