"""Cuts of the graph (`.detach()`, `.data`, `.numpy()`, `.item()`, no_grad blocks) and, at
the end, the parameters that never got a gradient: `graph-cut` when a cut explains it,
`param-no-grad` when nothing does.

# Note [Cuts]
# Every cut of a tensor that requires grad is remembered by the user's line: the graph it
# cut off (its latest node, or the leaves it read). A cut is harmless unless a parameter
# the user trains never gets a gradient, so nothing is reported while the program runs; at
# the end, a parameter without gradient that a cut's graph reaches is explained by that cut.
# A no_grad block also cuts whenever a model is evaluated; such a cut counts only if what it
# made flowed into a graph that was backpropagated: its results carry a mark
# (`_doctor_cut`), ops pass the mark on, and each backward looks for it (backward.py).
# `.detach()` and `.data` results are followed the same way.
#
# Note [Logged cuts]
# Logging cuts too: `loss_b.item()`, `out_b.detach()` of a task whose loss was left out of
# the total. Such a cut reaches the starved head, but the fix is the loss, not the cut
# (`param-no-grad`). A cut whose result is no tensor (`.numpy()`, `.tolist()`, `.item()`,
# also after `.detach()`) explains a missing gradient only when the values of a whole
# tensor left dyngrad (not one number) and did not come from a model call whose other
# outputs a backward used, or when some backward reached no parameter at all (the loss was
# rebuilt from values: `torch.tensor(error, requires_grad=True)`).
"""

from __future__ import annotations

import weakref

from .._tensor import Tensor
from ..graph import grad_mode
from ..graph.node import AccumulateGrad
from .sites import called_from_user, definition_site, frame_site, user_frame, user_site

__all__ = ["install", "finish", "no_grad_op", "propagate_marks", "Cut"]


class Cut:
    """One line that cut the graph, and what it cut off."""

    __slots__ = ("kind", "sources", "flowed", "escaped", "output")

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.sources: dict = {}  # id -> node (the latest) or leaf tensor
        self.flowed = False  # what it made went on into a graph that was backpropagated
        self.escaped = False  # values of a whole tensor left dyngrad (.numpy(), .tolist())
        self.output = None  # the model call whose output was cut (See Note [Logged cuts])

    def explains(self, session) -> bool:
        """Whether this cut, rather than a loss that leaves the parameters out, starves them."""
        if self.flowed or session.disconnected:
            return True
        return self.escaped and not (self.output is not None and self.output.used)

    def leaves(self) -> set:
        """ids of the leaves whose gradient passes through what was cut off."""
        found, stack, seen = set(), [], set()
        for source in self.sources.values():
            if isinstance(source, Tensor):
                found.add(id(source))
            else:
                stack.append(source)
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if type(node) is AccumulateGrad:
                variable = node.variable
                if variable is not None:
                    found.add(id(variable))
                continue
            stack.extend(child for child, _ in node.next_functions if child is not None)
        return found


def record(session, t, kind: str, site) -> Cut:
    cut = session.cuts.get(site)
    if cut is None:
        cut = session.cuts[site] = Cut(kind)
    if kind in _VALUES and t._data.size > 1:
        cut.escaped = True
    if t._grad_fn is not None and cut.output is None:
        cut.output = session.pending.get(id(t._grad_fn))
    if t._grad_fn is not None:
        cut.sources = {id(t._grad_fn): t._grad_fn}  # the latest graph is enough; older ones may go
    else:
        cut.sources[id(t)] = t
    return cut


def no_grad_op(session, args, outs) -> None:
    """An op ran with grad mode off: a cut if an input requires grad (see Note [Cuts])."""
    inputs = [a for a in args if isinstance(a, Tensor) and a._requires_grad]
    if not inputs:
        return
    frames = session.no_grad_frames
    site = (frames and frame_site(frames[-1])) or user_site(3)
    for t in inputs:
        record(session, t, "no_grad", site)
    mark = frozenset((site,))
    for t in outs:
        t._doctor_cut = mark if t._doctor_cut is None else t._doctor_cut | mark


def propagate_marks(session, args, outs, node) -> None:
    marks = None
    for a in args:
        if isinstance(a, Tensor) and a._doctor_cut is not None:
            marks = a._doctor_cut if marks is None else marks | a._doctor_cut
    if marks is None:
        return
    if node is not None:
        key = id(node)
        table = session.marked_nodes
        table[key] = (weakref.ref(node, lambda _, key=key: table.pop(key, None)), marks)
        return
    for t in outs:
        t._doctor_cut = marks if t._doctor_cut is None else t._doctor_cut | marks


# ---- Tensor methods that cut ------------------------------------------------------------


def _cutting(session, original, kind: str):
    def method(self, *args, **kwargs):
        watched = not session.busy and not session.in_backward and called_from_user()
        if watched and self._requires_grad:
            site = user_site()
            record(session, self, kind, site)
            result = original(self, *args, **kwargs)
            if kind not in _VALUES:  # followed like a no_grad result: See Note [Cuts]
                result._doctor_cut = frozenset((site,))
            return result
        if watched and kind in _VALUES and self._doctor_cut is not None and self._data.size > 1:
            for site in self._doctor_cut:  # `.detach().numpy()`: the values leave dyngrad
                cut = session.cuts.get(site)
                if cut is not None:
                    cut.escaped = True
        return original(self, *args, **kwargs)

    method.__name__ = original.__name__
    method.__doc__ = original.__doc__
    return method


_VALUES = (".numpy()", ".item()", ".tolist()")  # cuts whose result is no tensor


def install(session, patcher) -> None:
    patcher.set(Tensor, "_doctor_cut", None)
    for name, kind in (
        ("detach", ".detach()"),
        ("numpy", ".numpy()"),
        ("item", ".item()"),
        ("tolist", ".tolist()"),
    ):
        patcher.set(Tensor, name, _cutting(session, getattr(Tensor, name), kind))
    data = Tensor.data
    patcher.set(Tensor, "data", property(_cutting(session, data.fget, ".data"), data.fset))
    for cls in (grad_mode.no_grad, grad_mode.inference_mode, grad_mode.set_grad_enabled):
        _watch_block(session, patcher, cls)


def _watch_block(session, patcher, cls) -> None:
    # The frame running a no_grad block: a cut inside is reported at the block's statement
    enter, exit_ = cls.__enter__, cls.__exit__
    frames = session.no_grad_frames

    def enter_block(self):
        result = enter(self)
        frames.append(None if grad_mode.state.enabled else user_frame())
        return result

    def exit_block(self, *exc):
        if frames:
            frames.pop()
        return exit_(self, *exc)

    patcher.set(cls, "__enter__", enter_block)
    patcher.set(cls, "__exit__", exit_block)


# ---- the end: parameters that never got a gradient ----------------------------------------


def finish(session) -> None:
    if session.passes == 0 or session.backward_failed:
        return
    missing = [
        p
        for p in _trained(session)
        if p._requires_grad
        and p._grad is None
        and not session.param(p).got_grad
        and id(p) not in session.orphans  # replaced in the model: See wiring.finish
    ]
    if not missing:
        return
    names = _names(session)
    explained, logged = set(), {}
    for site, cut in session.cuts.items():
        leaves = cut.leaves()
        hit = [p for p in missing if id(p) in leaves]
        if hit and not cut.explains(session):
            for p in hit:  # See Note [Logged cuts]
                logged.setdefault(id(p), site)
        elif hit:
            explained.update(id(p) for p in hit)
            what = "the no_grad block" if cut.kind == "no_grad" else f"`{cut.kind}`"
            session.report.add(
                "graph-cut",
                site,
                f"{what} here cuts the loss's path to {_listing(hit, names)}: "
                f"{'it gets' if len(hit) == 1 else 'they get'} no gradient and never train",
            )
    _report_unused(session, [p for p in missing if id(p) not in explained], names, logged)


def _report_unused(session, params: list, names: dict, logged: dict) -> None:
    by_site: dict = {}
    for p in params:
        by_site.setdefault(_definition(session, p) or session.first_step_site, []).append(p)
    for site, group in by_site.items():
        several = len(group) > 1
        seen = logged.get(id(group[0]))
        branch = (
            f"; {'their' if several else 'its'} branch is computed (a value of it is read at "
            f"line {seen[1]}) but left out of the loss that is backpropagated (a task loss "
            "not added to the total?)"
            if seen
            else ""
        )
        session.report.add(
            "param-no-grad",
            site,
            f"{'parameters' if several else 'parameter'} {_listing(group, names)} "
            f"{'require' if several else 'requires'} grad but never got a gradient: the loss "
            f"does not depend on {'them' if several else 'it'}{branch}",
        )


def _trained(session) -> list:
    """The parameters meant to train: the stepped optimizers', else the backpropagated
    models' and the leaves updated by hand."""
    if session.optimizers:
        return [
            p for opt in session.optimizers.values() for g in opt.param_groups for p in g["params"]
        ]
    params = [p for m in session.models.values() if m.used for p in m.module.parameters()]
    return params + list(session.manual.values())


def _names(session) -> dict:
    names = {}
    for state in session.models.values():
        for name, p in state.module.named_parameters():
            names.setdefault(id(p), name)
    return names


def _listing(params, names: dict) -> str:
    shown = [
        f"`{names.get(id(p), 'a tensor of shape ' + str(tuple(p.shape)))}`" for p in params[:4]
    ]
    more = f" and {len(params) - 4} more" if len(params) > 4 else ""
    return ", ".join(shown) + more


def _definition(session, p):

    for state in session.models.values():
        owners = _owners(state.module, p)
        if owners:
            return definition_site(owners) or state.site
    return None


def _owners(module, p) -> list:
    # (module, attribute) pairs from the parameter's owner out to `module`
    for name, value in module._parameters.items():
        if value is p:
            return [(module, name)]
    for name, child in module._modules.items():
        if child is not None:
            inner = _owners(child, p)
            if inner:
                return inner + [(module, name)]
    return []
