"""Learning-rate schedulers stepped out of rhythm: before the optimizer's step, or an
epoch-based schedule stepped every batch so that the rate collapses.

# Note [Scheduler rhythm]
# A scheduler step is "inside the batch loop" when a DataLoader iterator is part-way through
# its epoch (it has yielded batches and not the last one), or, without a DataLoader, when the
# scheduler's `step()` and the optimizer's `step()` sit in the same innermost loop of the
# source and that loop runs inside another (an epoch loop, in the same function or in a
# caller). Only schedules sized in epochs are judged: StepLR, MultiStepLR and ExponentialLR
# whose decay is shorter than an epoch's batches, and CosineAnnealingLR whose T_max is
# shorter than an epoch or already run past. OneCycleLR, warm-up schedules (LambdaLR,
# LinearLR, SequentialLR) and a T_max of all batches are meant per batch and never judged.
"""

from __future__ import annotations

import ast
import linecache
import weakref

from ..optim.lr_scheduler.base import LRScheduler
from ..optim.lr_scheduler.multiplicative import (
    CosineAnnealingLR,
    ExponentialLR,
    MultiStepLR,
    StepLR,
)
from ..utils.data.iterators import BaseDataLoaderIter
from .sites import _PACKAGE_DIR, called_from_user, user_frame
from .training import relay_warnings

__all__ = ["install"]


def install(session, patcher) -> None:
    step, fetch = LRScheduler.step, BaseDataLoaderIter.__next__

    def scheduler_step(self, *args, **kwargs):
        if not session.busy and called_from_user():
            _on_step(session, self)
        return relay_warnings(step, self, *args, **kwargs)

    def next_batch(self):
        try:
            data = fetch(self)
        except StopIteration:
            session.batches = None
            raise
        session.batches = weakref.ref(self)
        return data

    scheduler_step.__doc__ = step.__doc__
    patcher.set(LRScheduler, "step", scheduler_step)
    patcher.set(BaseDataLoaderIter, "__next__", next_batch)


def _on_step(session, scheduler) -> None:
    frame = user_frame(2)
    site = (frame.f_code.co_filename, frame.f_lineno)
    stepped = session.step_counts.get(id(scheduler.optimizer), 0)
    if stepped == 0:
        session.report.add(
            "scheduler-misuse",
            site,
            f"{type(scheduler).__name__}.step() runs before the optimizer has stepped: the "
            "first learning rate of the schedule is skipped (PyTorch expects "
            "optimizer.step() first)",
        )
        return
    if not isinstance(scheduler, _BY_EPOCH):
        return
    inside, batches = _batch_loop(session, frame)
    why = inside and _collapses(scheduler, batches)
    if why:
        session.report.add(
            "scheduler-misuse",
            site,
            f"{type(scheduler).__name__}.step() runs every batch, but the schedule is sized "
            f"in epochs ({why}): the learning rate collapses within the first epochs",
        )


_BY_EPOCH = (StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR)


def _collapses(scheduler, batches: int | None) -> str | None:
    """Why a schedule stepped per batch is sized in epochs (See Note [Scheduler rhythm]);
    `batches` is the epoch's length when a DataLoader tells it."""

    def short(size) -> bool:  # shorter than a few epochs of batches
        return batches is None or size < 4 * batches

    if isinstance(scheduler, StepLR) and short(scheduler.step_size):
        return f"step_size={scheduler.step_size}"
    if isinstance(scheduler, MultiStepLR) and scheduler.milestones:
        first = min(scheduler.milestones)
        if short(first):
            return f"first milestone {first}"
    if isinstance(scheduler, ExponentialLR) and scheduler.gamma < 0.99:
        return f"gamma={scheduler.gamma} per step"
    if isinstance(scheduler, CosineAnnealingLR):
        past = scheduler.last_epoch + 1 > scheduler.T_max
        if past or (batches is not None and scheduler.T_max < batches):
            return f"T_max={scheduler.T_max}, fewer than the batches it is stepped"
    return None


def _batch_loop(session, frame) -> tuple:
    """(whether this step is inside a batch loop, the epoch's batches if known)."""
    live = session.batches() if session.batches is not None else None
    if live is not None:
        total = len(live)
        return 0 < live._num_yielded < total, total
    if session.last_step_frame is None:
        return False, None
    code, line = session.last_step_frame
    if code is not frame.f_code:
        return False, None
    loops = _loops(code.co_filename)
    inner = _innermost(loops, frame.f_lineno)
    if inner is None or inner is not _innermost(loops, line):
        return False, None
    nested = any(a[0] < inner[0] and inner[1] <= a[1] for a in loops) or any(
        _innermost(_loops(f.f_code.co_filename), f.f_lineno) is not None for f in _callers(frame)
    )
    return nested, None


def _callers(frame):
    frame = frame.f_back
    while frame is not None and frame.f_globals.get("__name__") != "runpy":
        if not frame.f_code.co_filename.startswith(_PACKAGE_DIR):
            yield frame
        frame = frame.f_back


_LOOPS: dict = {}


def _loops(filename: str) -> list:
    """(first line, last line) of each for/while loop in the file."""
    found = _LOOPS.get(filename)
    if found is None:
        try:
            tree = ast.parse("".join(linecache.getlines(filename)))
        except SyntaxError:
            tree = None
        found = _LOOPS[filename] = (
            []
            if tree is None
            else [
                (node.lineno, node.end_lineno)
                for node in ast.walk(tree)
                if isinstance(node, (ast.For, ast.While, ast.AsyncFor))
            ]
        )
    return found


def _innermost(loops: list, line: int):
    inside = [loop for loop in loops if loop[0] <= line <= loop[1]]
    return min(inside, key=lambda loop: loop[1] - loop[0]) if inside else None
