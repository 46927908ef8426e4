"""The per-op check: non-finite results, graphs built while loading data, graphs carried
across iterations, and cuts made under no_grad (see Note [Op observer] in ops/table/record.py)."""

from __future__ import annotations

import functools
import math
import sys
import weakref

import numpy as np

from .._tensor import Tensor
from ..graph.grad_mode import state as grad_state
from ..graph.node import AccumulateGrad, Node
from ..ops.table import record
from . import cuts
from .op_rules import RULES
from .sites import _PACKAGE_DIR, frame_site, user_site

__all__ = ["install", "observe"]


def install(session, patcher) -> None:
    patcher.set(record, "observer", functools.partial(observe, session))
    patcher.set(record, "observe_backward", True)  # See Note [Observed backward passes]


def observe(session, op, args, attrs, result) -> None:
    """Called by every op while the doctor runs, after the op made its result."""
    if session.busy:
        return
    rule = RULES.get(op.name)
    if rule is not None and not session.in_backward:
        rule(session, args, attrs, result)
    outs = result if type(result) is tuple else (result,)
    if op.name not in _STAYS_FINITE:
        for t in outs:
            data = t._data
            if data.dtype.kind == "f" and data.size and not _finite(data):
                _nonfinite(session, op, args, attrs, t)
                break
    node = outs[0]._grad_fn
    inplace = bool(args) and result is args[0]
    if node is not None:
        if session.in_backward:
            return
        frame = sys._getframe(1)  # the user's frame (inline: this runs for every op)
        while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
            frame = frame.f_back
        site = frame_site(frame)
        node._doctor_site = site  # for a non-finite gradient found later in backward
        if session.fetching and frame is not session.fetch_frame:  # not the loader's collate
            session.report.add(
                "worker-graph",
                site,
                f"`{op.name}` records an autograd graph while the DataLoader fetches a sample "
                "(Dataset.__getitem__ or collate): with num_workers > 0 every worker builds and "
                "keeps such graphs",
            )
        _check_carry(session, node, site)
    elif not grad_state.enabled and not session.in_backward and not inplace:
        cuts.no_grad_op(session, args, outs)
    elif inplace and not grad_state.enabled and not session.in_backward:
        target = args[0]
        site = user_site(2)
        if (
            target._version_counter.last_site is None
        ):  # for the in-place error, should backward fail
            target._version_counter.last_site = site
        if (
            target._requires_grad
            and target._grad_fn is None
            and target._grad is not None
            and op.name in _UPDATES
        ):
            session.remember(session.manual, target)
            session.new_boundary()
            session.param_step(target, site)
    cuts.propagate_marks(session, args, outs, node)


# ops whose output is finite when their inputs are: they move, select or bound values (a
# non-finite output came in with an input), so the check of every op skips them
_STAYS_FINITE = frozenset(
    {
        "select",
        "slice",
        "view",
        "unsafe_view",
        "t",
        "transpose",
        "permute",
        "expand",
        "squeeze",
        "unsqueeze",
        "clone",
        "contiguous",
        "index",
        "getitem",
        "cat",
        "stack",
        "relu",
        "threshold_backward",
        "sigmoid",
        "tanh",
        "hardtanh",
        "clamp",
        "abs",
        "neg",
        "softmax",
        "max_pool2d",
        "dropout",
        "where",
    }
)  # fmt: skip (not to_copy: a cast to float16 overflows above 65504)

# the in-place ops of a hand-written update (`w -= lr * w.grad`), not copy_ or init's fills
_UPDATES = frozenset({"sub", "add", "add_scaled", "addcdiv", "addcmul"})


def _finite(data) -> bool:
    total = data.sum()
    if math.isfinite(total):
        return True
    return bool(np.isfinite(data).all())  # the sum may overflow while every value is finite


def _nonfinite(session, op, args, attrs, t) -> None:
    for a in list(args) + list(attrs.values()):
        if isinstance(a, Tensor):
            if a._data.dtype.kind == "f" and not np.isfinite(a._data).all():
                return  # carried in from an input: not where it started
        elif isinstance(a, float) and not math.isfinite(a):
            return  # asked for (masked_fill(mask, -inf), clamp(max=inf))
    what = "nan" if np.isnan(t._data).any() else "inf"
    if session.in_backward:
        node = _running_node()
        site = None if node is None else node.__dict__.get("_doctor_site")
        name = "backward" if node is None else node.name()
        session.report.add(
            "nonfinite",
            site or session.backward_site,
            f"{name} produced {what} in the backward pass (in `{op.name}`) from finite "
            "gradients: the first non-finite gradient; the line is its forward op",
        )
        return
    session.report.add(
        "nonfinite",
        user_site(2),
        f"`{op.name}` produced {what} from finite inputs: the first non-finite value"
        + _low_precision_note(t, what),
    )


def _low_precision_note(t, what: str) -> str:
    # float16 overflows at 65504: under autocast a product that fits float32 becomes inf
    if what != "inf" or t._data.dtype != np.float16:
        return ""
    return (
        " (float16 overflows above 65504: under autocast(dtype=torch.float16) this op runs in "
        "float16; use dtype=torch.bfloat16, which has float32's range, or keep the values "
        "smaller)"
    )


def _running_node():
    # the node whose backward formula is running: the nearest `apply(self, ...)` of a Node
    frame = sys._getframe(3)
    while frame is not None:
        owner = frame.f_locals.get("self") if frame.f_code.co_name == "apply" else None
        if isinstance(owner, Node):
            return owner
        frame = frame.f_back
    return None


def _check_carry(session, node, site) -> None:
    boundary = session.boundary
    carried = session.carried
    for child, _ in node.next_functions:
        if child is None or child._seq >= boundary or type(child) is AccumulateGrad:
            continue
        entry = carried.get(id(child))
        if entry is not None and entry[0]() is child:
            if not entry[1]:  # a carried graph backpropagated with retain_graph: see backward
                session.report.add(
                    "graph-growth",
                    site,
                    "this statement extends a graph kept from earlier iterations (each "
                    "iteration adds to it, none frees it): memory and backward time grow",
                )
            _carry(session, node, entry[1])
            return
        _carry(session, node, False)


def _carry(session, node, retained: bool) -> None:
    key = id(node)
    table = session.carried
    table[key] = [weakref.ref(node, lambda _, key=key: table.pop(key, None)), retained]
