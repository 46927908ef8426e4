"""Training-loop checks: optimizer steps (missing zero_grad), clipping after the step, model
calls (evaluation that builds graphs, dropout or batch norm left in training mode) and
samples loaded with a graph (the DataLoader's fetch)."""

from __future__ import annotations

import os
import sys
import warnings
import weakref

from .._tensor import Tensor
from ..autograd import scope
from ..graph.grad_mode import state as grad_state
from ..nn import utils as nn_utils
from ..nn.modules.dropout import _DropoutNd
from ..nn.modules.module import Module
from ..nn.modules.normalization import _BatchNorm
from ..nn.utils import clip_grad
from ..ops.table import record as recording
from ..optim import optimizer as optimizer_module
from ..utils.data import worker
from ..utils.data.collate import default_collate, default_convert
from ..utils.data.dataset import TensorDataset
from . import scaling, wiring
from .sites import _PACKAGE_DIR, frame_site, user_frame, user_site

__all__ = ["install", "finish", "ModelState"]

_CLIPS = ("clip_grad_norm_", "clip_grad_value_", "clip_grad_norm")


def install(session, patcher) -> None:
    patcher.set(optimizer_module, "step_observer", lambda opt: _on_step(session, opt))
    for owner in (nn_utils, clip_grad):
        for name in _CLIPS:
            patcher.set(owner, name, _clipping(session, getattr(owner, name)))
    patcher.set(Module, "__call__", _calling(session, Module.__call__))
    for cls in (worker.MapFetcher, worker.IterableFetcher):
        patcher.set(cls, "fetch", _fetching(session, cls.fetch))


# ---- optimizer steps and clipping ------------------------------------------------------------


def _on_step(session, optimizer) -> None:
    if session.busy:
        return
    frame = user_frame()
    site = frame_site(frame)
    if session.first_step_site is None:
        session.first_step_site = site
    session.remember(session.optimizers, optimizer)
    counts = session.step_counts
    counts[id(optimizer)] = counts.get(id(optimizer), 0) + 1
    session.last_step_frame = None if frame is None else (frame.f_code, frame.f_lineno)
    wiring.check_step(session, optimizer)
    session.new_boundary()
    for group in optimizer.param_groups:
        for p in group["params"]:
            if p._grad is not None:
                session.param_step(p, site)


def _clipping(session, original):
    def clip(parameters, *args, **kwargs):
        if not session.busy and session.passes:
            parameters = [parameters] if isinstance(parameters, Tensor) else list(parameters)
            if any(
                p._grad is not None and session.param(p).stepped_pass == session.passes
                for p in parameters
            ):
                session.report.add(
                    "clip-after-step",
                    user_site(),
                    f"{original.__name__} clips gradients that optimizer.step() has already "
                    "applied: the step used the unclipped gradients, and these are thrown away",
                )
            else:
                scaling.check_clip(session, parameters, original.__name__)
        return relay_warnings(original, parameters, *args, **kwargs)

    clip.__name__ = original.__name__
    clip.__doc__ = original.__doc__
    return clip


def relay_warnings(fn, *args, **kwargs):
    """Call `fn` from a wrapper as if the wrapper were not there: a warning that `fn` places
    one frame up (with `stacklevel`) lands on the user's line, not on the wrapper's."""
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            return fn(*args, **kwargs)
    finally:
        _reissue(caught)


def _reissue(caught: list) -> None:
    # the filters and "once" registries apply when the warning is issued again, out here
    frame = sys._getframe(2)
    while frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
    for w in caught:
        if w.filename.startswith(os.path.dirname(__file__)):
            filename, lineno = frame.f_code.co_filename, frame.f_lineno
            registry = frame.f_globals.setdefault("__warningregistry__", {})
        else:
            filename, lineno = w.filename, w.lineno
            registry = _REGISTRIES.setdefault(filename, {})
        warnings.warn_explicit(w.message, w.category, filename, lineno, registry=registry)


_REGISTRIES: dict = {}  # "once" bookkeeping for warnings relayed from other files


# ---- model calls ------------------------------------------------------------------------------


class ModelState:
    """A module called at the top level (not from inside another module's forward)."""

    def __init__(self, module, site) -> None:
        self.module = module
        self.label = type(module).__name__
        self.site = site  # its first call
        self.used = False  # a backward went through one of its outputs
        self.used_pass = -1
        self.named = None
        self.first_norm = None
        self.norm_passes = 0
        self.vanish_streak = 0
        self.stochastic = [
            (name or self.label, m)
            for name, m in module.named_modules()
            if isinstance(m, _BatchNorm) or isinstance(m, _DropoutNd) and m.p > 0
        ]


class OutputRecord:
    """The graph outputs of one top-level model call, until a backward uses one."""

    def __init__(self, session, state: ModelState, site, eval_mode: bool) -> None:
        self.session, self.state, self.site = session, state, site
        self.eval_mode = eval_mode
        self.used = False
        self.refs: list = []

    def use(self, passes: int) -> None:
        if self.eval_mode and self.state.stochastic:
            wiring.eval_output_used(self.session, self)
        self.used = True
        self.state.used = True
        self.state.used_pass = passes

    def gone(self, key: int) -> None:
        session = self.session
        session.pending.pop(key, None)
        self.refs = [ref for ref in self.refs if ref() is not None]
        if not self.refs and not self.used:
            session.unused[self.site] = self  # judged at the end: see `finish`


def report_unused(record: OutputRecord) -> None:
    mode = " (the model is in eval mode)" if record.eval_mode else ""
    record.session.report.add(
        "eval-builds-graph",
        record.site,
        f"this forward pass of {record.state.label}{mode} records a graph that no backward "
        "uses: an evaluation without torch.no_grad() spends time and memory on it",
    )


def _calling(session, original):
    running = scope._stack  # See Note [Module scope]: non-empty inside another module's call

    def call(self, *args, **kwargs):
        if running or session.busy or session.fetching:
            return original(self, *args, **kwargs)
        site = user_site()
        if args and isinstance(args[0], Tensor) and args[0].ndim:
            session.batch = args[0].shape  # for softmax-wrong-dim
        state = _model(session, self, site)
        if state is None:  # no parameters: a loss or an activation, not a model
            return relay_warnings(original, self, *args, **kwargs)
        if not grad_state.enabled:
            _check_mode(session, state, site)
        out = relay_warnings(original, self, *args, **kwargs)
        if grad_state.enabled:
            _track(session, state, out, site, not self.training)
        return out

    return call


def _model(session, module, site) -> ModelState | None:
    key = id(module)
    state = session.models.get(key)
    if state is None and key not in session.paramless:
        if next(module.parameters(), None) is None:
            session.paramless[key] = module
            return None
        state = session.models[key] = ModelState(module, site)
    return state


def _check_mode(session, state: ModelState, site) -> None:
    active = [(name, m) for name, m in state.stochastic if m.training]
    if not active:
        return
    named = ", ".join(f"`{name}` ({type(m).__name__})" for name, m in active[:3])
    effects = []
    if any(isinstance(m, _DropoutNd) for _, m in active):
        effects.append("dropout still drops activations")
    if any(isinstance(m, _BatchNorm) for _, m in active):
        effects.append("batch norm uses batch statistics and updates its running ones")
    session.report.add(
        "train-mode-in-eval",
        site,
        f"{state.label} runs under no_grad with {named} in training mode: "
        f"{' and '.join(effects)}, so this evaluation is wrong",
    )


def _track(session, state: ModelState, out, site, eval_mode: bool) -> None:
    nodes = {id(t._grad_fn): t._grad_fn for t in _tensors(out) if t._grad_fn is not None}
    if not nodes:
        return
    record = OutputRecord(session, state, site, eval_mode)
    for key, node in nodes.items():
        session.pending[key] = record
        record.refs.append(weakref.ref(node, lambda _, key=key: record.gone(key)))
        # the pass that will use it is the next one: See Note [Kept graphs]
        session.lineage.append((session.passes + 1, weakref.ref(node)))
    if len(session.lineage) > 1024:  # no backward prunes it in an evaluation-only run
        session.lineage = [entry for entry in session.lineage if entry[1]() is not None]


def _tensors(out) -> list:
    if isinstance(out, Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        return [t for item in out for t in _tensors(item)]
    if isinstance(out, dict):
        return [t for item in out.values() for t in _tensors(item)]
    return []


def finish(session) -> None:
    """Model outputs that no backward used: an evaluation if the model trains elsewhere (or
    is in eval mode); a model that never trains has its graph cut instead (cuts.py)."""
    records = list(session.unused.values())
    if not session.failed:  # a failed run may stop between a forward and its backward
        records += {id(r): r for r in session.pending.values()}.values()
    for record in records:
        if not record.used and (record.eval_mode or record.state.used):
            report_unused(record)


# ---- the DataLoader's fetch -----------------------------------------------------------------


def _fetching(session, original):
    def fetch(self, index):
        if session.busy:
            return original(self, index)
        if _plain(self):  # nothing to see, and ops run faster unobserved (indexing's fast form)
            observer, recording.observer = recording.observer, None
            try:
                return original(self, index)
            finally:
                recording.observer = observer
        in_worker = os.getpid() != session.report._owner
        previous = grad_state.enabled
        if in_worker:  # dyngrad's workers run without grad; torch's, which we mimic, with
            grad_state.enabled = True
        session.fetching += 1
        outer, session.fetch_frame = session.fetch_frame, user_frame()
        try:
            data = original(self, index)
        finally:
            session.fetching -= 1
            session.fetch_frame = outer
            grad_state.enabled = previous
        return _detached(data) if in_worker else data

    return fetch


def _plain(fetcher) -> bool:
    """A TensorDataset of tensors that need no gradient, batched by default_collate: its
    samples are slices, which can build no graph and make no NaN."""
    dataset = getattr(fetcher, "dataset", None)
    return (
        type(dataset) is TensorDataset
        and getattr(fetcher, "collate_fn", None) in (default_collate, default_convert)
        and not any(t._requires_grad for t in dataset.tensors)
    )


def _detached(data):
    # what the worker would have sent without the doctor: no tensor requires grad
    if isinstance(data, Tensor):
        return Tensor._wrap(data._data) if data._requires_grad else data
    if isinstance(data, (tuple, list)) and not hasattr(data, "_fields"):
        return type(data)(_detached(item) for item in data)
    if isinstance(data, dict):
        return {key: _detached(value) for key, value in data.items()}
    return data
