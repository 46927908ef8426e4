"""Rules on single ops that compute the wrong thing without an error: a softmax fed to a loss
that applies its own, a softmax over the batch, a loss whose operands broadcast to (N, N),
and a view or reshape that reorders dimensions (Note [Op rules])."""

from __future__ import annotations

import linecache
import os
import re
import sys

from .._tensor import Tensor
from .sites import _PACKAGE_DIR, user_site

__all__ = ["RULES"]

# Note [Op rules]
# `ops.observe` looks each op up in RULES by name (one dict lookup per op while the doctor
# runs); a rule runs only for its ops and looks at shapes and grad_fn names, never at values.
# Rules on `sub`/`mul`/`view` judge only calls made by the user's code (a tensor operator or
# a torch function), not the ops dyngrad's own modules run inside.

_DIRECT = tuple(
    os.path.join(_PACKAGE_DIR, part) for part in ("_tensor.py", "ops" + os.sep, "__init__.py")
)

# graph nodes that move values around without computing: looked through to find a softmax
_SHAPE_NODES = (
    "View",
    "UnsafeView",
    "Reshape",
    "Squeeze",
    "Unsqueeze",
    "Permute",
    "Transpose",
    "Select",
    "Slice",
    "Index",
    "Clone",
    "ToCopy",
    "Expand",
    "T",
)
_SOFTMAX = ("SoftmaxBackward0", "LogSoftmaxBackward0")


def _direct() -> bool:
    """Whether the op was called by the user's code itself, not inside nn or autograd."""
    frame, outermost = sys._getframe(3), None
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        outermost = frame.f_code.co_filename
        frame = frame.f_back
    return outermost is None or outermost.startswith(_DIRECT)


def _through_shapes(node, steps: int = 6):
    while node is not None and steps and node.name().startswith(_SHAPE_NODES):
        if not node.next_functions:
            return None
        node = node.next_functions[0][0]
        steps -= 1
    return node


def _line_of(node) -> str:
    site = None if node is None else node.__dict__.get("_doctor_site")
    return f" (line {site[1]})" if site else ""


# ---- double-softmax ------------------------------------------------------------------------


def _nll_loss(session, args, attrs, result) -> None:
    node = _through_shapes(args[0]._grad_fn)
    if node is not None and node.name() == "SoftmaxBackward0":
        session.report.add(
            "double-softmax",
            user_site(),
            f"nll_loss gets softmax probabilities{_line_of(node)}, but NLLLoss expects "
            "log-probabilities: the loss is wrong and its gradients are weak",
            "return raw logits and use F.cross_entropy (or log_softmax with NLLLoss)",
        )


def _log_softmax(session, args, attrs, result) -> None:
    # cross_entropy starts with log_softmax (also with label smoothing or soft targets)
    _softmax(session, args, attrs, result)
    inner = _through_shapes(args[0]._grad_fn)
    if inner is not None and inner.name() == "LogBackward0":  # log(softmax(x))
        inner = _through_shapes(inner.next_functions[0][0])
    if inner is None or inner.name() not in _SOFTMAX:
        return
    what = "softmax" if inner.name() == "SoftmaxBackward0" else "log_softmax"
    session.report.add(
        "double-softmax",
        user_site(),
        f"log_softmax (as in cross_entropy) is applied to {what} outputs{_line_of(inner)}: "
        "the model's outputs are squashed twice, so the loss and its gradients are wrong "
        "(training stalls)",
    )


# ---- softmax-wrong-dim ----------------------------------------------------------------------


def _softmax(session, args, attrs, result) -> None:
    x = args[0]
    ndim = x.ndim
    if ndim < 2 or attrs["dim"] % ndim != 0 or x.shape[0] < 2:
        return
    lead = session.batch
    if lead is not None and x.shape[0] != lead[0]:
        return
    if lead is not None and len(lead) >= 3 and x.shape[:2] == lead[:2]:
        return  # scores per position of a sequence: (time, batch) attention over time
    site = _softmax_site(user_site())
    session.report.add(
        "softmax-wrong-dim",
        site,
        f"softmax over dim 0 of a {tuple(x.shape)} tensor normalises across the batch (each "
        "class's scores over the samples), not across the classes of each sample",
    )


_SOFTMAX_CALL = re.compile(r"softmax\s*\(\s*([^,)]*,\s*)?(dim\s*=\s*)?0\s*\)", re.IGNORECASE)


def _softmax_site(site):
    # `nn.Softmax(dim=0)` inside a Sequential runs from the model call: name its definition
    if site is None or "softmax" in linecache.getline(*site).lower():
        return site
    for number, text in enumerate(linecache.getlines(site[0]), 1):
        found = _SOFTMAX_CALL.search(text.split("#", 1)[0])
        if found and not re.search("[\"']", text[: found.start()]):  # not in a docstring
            return site[0], number
    return site


# ---- broadcast-loss -------------------------------------------------------------------------


def _grows(a, b) -> bool:
    # (N, 1) against (N,): the result is (N, N), N times the elements of either
    sa, sb = a.shape, b.shape
    if len(sa) < len(sb):
        sa, sb = sb, sa
    return len(sa) == 2 and len(sb) == 1 and sa[1] == 1 and sa[0] == sb[0] > 1


def _loss(session, args, attrs, result) -> None:
    a, b = args[0], args[1]
    if isinstance(b, Tensor) and a.shape != b.shape and _grows(a, b):
        _broadcast(session, a, b, "the loss")


def _elementwise(session, args, attrs, result) -> None:
    if len(args) < 2:
        return
    a, b = args[0], args[1]
    if not (isinstance(a, Tensor) and isinstance(b, Tensor)) or a.ndim + b.ndim != 3:
        return
    if a._requires_grad != b._requires_grad and _grows(a, b) and _direct():
        _broadcast(session, a, b, "this difference")


def _broadcast(session, a, b, what: str) -> None:
    n = max(a.shape[0], b.shape[0])
    session.report.add(
        "broadcast-loss",
        user_site(),
        f"{what} compares a {tuple(a.shape)} tensor with a {tuple(b.shape)} one: they "
        f"broadcast to ({n}, {n}), every prediction against every target, so the loss is "
        "wrong without any error",
    )


# ---- view-as-permute ------------------------------------------------------------------------


def _view(session, args, attrs, result) -> None:
    before = [d for d in args[0].shape if d != 1]
    after = [d for d in attrs["shape"] if d != 1]
    if len(before) < 2 or before == after or sorted(before) != sorted(after) or not _direct():
        return
    session.report.add(
        "view-as-permute",
        user_site(),
        f"view/reshape turns shape {tuple(args[0].shape)} into {tuple(attrs['shape'])}: the "
        "same sizes in another order. view and reshape keep the elements' order, so this "
        "scrambles the data instead of moving the dimensions",
    )


RULES = {
    "nll_loss": _nll_loss,
    "nll_loss2d": _nll_loss,
    "softmax": _softmax,
    "log_softmax": _log_softmax,
    "mse_loss": _loss,
    "l1_loss": _loss,
    "smooth_l1_loss": _loss,
    "huber_loss": _loss,
    "sub": _elementwise,
    "rsub": _elementwise,
    "mul": _elementwise,
    "view": _view,
    "unsafe_view": _view,
}
