"""A doctor session: the state the checks share, and the hooks it installs while it runs.

# Note [Doctor hooks]
# The doctor costs nothing while off: it adds no check to dyngrad's code paths beyond two
# module-level switches that are None (`ops.table.record.observer`, `optim.optimizer.
# step_observer`; `record.observe_backward` is read only while the first is set) and the
# engine's observer lists (See Note [Engine observers]). `start()`
# adds its engine observer and installs the rest by replacing attributes (Tensor methods,
# Module.__call__, clip functions, DataLoader fetchers, grad-mode context managers);
# `stop()` undoes both, whatever happened in between.
"""

from __future__ import annotations

import weakref

from ..graph.node import _sequence
from . import backward, cuts, data_parallel, kept, ops, scaling, schedules, training, wiring
from .findings import Report

__all__ = ["Session", "current", "ParamState", "watch", "watching"]

_active: Session | None = None


def current() -> Session | None:
    """The running session, or None."""
    return _active


class ParamState:
    """What the doctor knows of one leaf that requires grad."""

    __slots__ = ("ref", "steps", "start", "stepped_pass", "got_grad")

    def __init__(self, ref) -> None:
        self.ref = ref
        self.steps = 0  # optimizer steps (or manual updates) that used its gradient
        self.start = None  # `steps` when its gradient last started from zero
        self.stepped_pass = -1  # the backward pass count at its latest step
        self.got_grad = False


class Patcher:
    """Replaces attributes and puts the originals back, in reverse order."""

    def __init__(self) -> None:
        self._undo: list = []

    def set(self, owner, name: str, value) -> None:
        had = name in vars(owner)
        self._undo.append((owner, name, vars(owner).get(name), had))
        setattr(owner, name, value)

    def on_restore(self, undo) -> None:
        """Call `undo()` at restore, in the same reverse order as the replaced attributes."""
        self._undo.append((undo, None, None, None))

    def restore(self) -> None:
        while self._undo:
            owner, name, old, had = self._undo.pop()
            if name is None:
                owner()
            elif had:
                setattr(owner, name, old)
            else:
                delattr(owner, name)


class Session:
    """Everything one `watch()` collects; the checks read and write it."""

    def __init__(self) -> None:
        self.report = Report()
        self.busy = False  # the doctor's own work runs unobserved
        self.failed = False
        self.backward_failed = False  # then missing gradients prove nothing
        # backward passes and iteration boundaries (see Note [Iteration boundaries])
        self.passes = 0
        self.boundary = 0
        self.in_backward = 0
        self.backward_site = None
        self.fetching = 0
        self.fetch_frame = None  # the frame that asked the DataLoader for a batch
        # leaves that require grad, and the optimizers and models seen
        self.params: dict[int, ParamState] = {}
        # held strongly until the end: the script's globals are gone by then
        self.optimizers: dict[int, object] = {}
        self.models: dict[int, object] = {}  # id -> ModelState (see training.py)
        self.paramless: dict[int, object] = {}  # modules without parameters (losses)
        self.manual: dict[int, object] = {}  # leaves updated in place by hand
        self.first_step_site = None
        self.orphans: set = set()  # optimizer parameters of a module replaced in the model
        self.optimizer_sites: dict = {}  # id(optimizer) -> where it was built
        self.eval_sites: dict = {}  # id(module) -> the user's model.eval() that is in force
        self.step_counts: dict = {}  # id(optimizer) -> its steps
        self.last_step_frame = None  # (code, line) of the latest optimizer step
        self.batches = None  # weakref to the DataLoader iterator of the latest batch
        self.scalers: dict = {}  # id -> (GradScaler, state): Note [Clipping scaled gradients]
        self.eval_trained: dict = {}  # forwards in eval mode that a backward used (wiring.py)
        self.batch = None  # the shape of the latest top-level model input
        # graph growth: nodes made from a graph of an earlier iteration
        self.carried: dict[int, list] = {}  # id(node) -> [weakref, retained]
        self.lineage: list = []  # (pass, weakref(node)) of roots and model outputs
        self.kept_reported = False
        self.kept_searches = 0
        self.kept_searched = 0  # old graphs alive at the latest search (Note [Kept graphs])
        self.kept_watch = None
        # cuts of the graph (see cuts.py) and tensors made from cuts under no_grad
        self.cuts: dict = {}
        self.nonfinite_grad = None  # (backward site, shape): Note [Observed backward passes]
        self.disconnected = False  # a backward reached no leaf but its roots
        self.marked_nodes: dict[int, tuple] = {}
        self.no_grad_frames: list = []
        # outputs of top-level module calls that no backward has used yet
        self.pending: dict[int, object] = {}
        self.unused: dict = {}  # site -> the latest call whose graph went without backward
        self.retained: dict = {}  # backward site -> (start seq, size, streak)
        self._patcher = Patcher()

    # ---- bookkeeping shared by the checks ----------------------------------------------
    def new_boundary(self) -> None:
        # Note [Iteration boundaries]: each backward and each optimizer step starts a new
        # stretch of sequence numbers; a node older than the latest boundary belongs to an
        # earlier stretch, so an op that uses it carries a graph across iterations.
        self.boundary = next(_sequence)

    def param(self, t) -> ParamState:
        key = id(t)
        state = self.params.get(key)
        if state is None or state.ref() is not t:
            state = ParamState(weakref.ref(t, lambda _, key=key: self.params.pop(key, None)))
            self.params[key] = state
        return state

    def param_step(self, t, site) -> None:
        """An optimizer step (or a manual update) consumed `t.grad`."""
        state = self.param(t)
        if state.start is not None and state.start < state.steps:
            self.report.add(
                "missing-zero-grad",
                site,
                "gradients accumulate across steps: the gradient used by this step still holds "
                "the previous step's gradient, because .grad was not zeroed in between",
            )
        state.steps += 1
        state.stepped_pass = self.passes

    def remember(self, table: dict, obj) -> None:
        table[id(obj)] = obj

    # ---- lifecycle -----------------------------------------------------------------------
    def start(self) -> None:
        global _active
        assert _active is None  # `watch` joins a running session instead

        import tempfile  # here: with shutil, bz2 and lzma, a few ms of `import dyngrad`

        self.report.open_spool(tempfile.mkdtemp(prefix="dyngrad-doctor-"))
        _active = self
        try:
            for module in (
                ops,
                backward,
                cuts,
                training,
                data_parallel,
                wiring,
                schedules,
                scaling,
            ):
                module.install(self, self._patcher)
        except BaseException:
            self._patcher.restore()
            _active = None
            raise

    def stop(self, failed: bool = False) -> Report:
        global _active

        self.failed = failed
        self.busy = True
        try:
            self._patcher.restore()
            kept.stop_watching(self)
            training.finish(self)
            wiring.finish(self)
            cuts.finish(self)
            backward.finish(self)
            data_parallel.finish(self)
        finally:
            _active = None
            self.report.merge_spool()
            import shutil  # loaded by tempfile at start()

            shutil.rmtree(self.report.spool, ignore_errors=True)
            self.report.spool = None
        return self.report


class watch:
    """Watch the code inside for silent training bugs; the report fills as it runs.

    >>> with dyngrad.doctor.watch() as report:
    ...     train()
    >>> for finding in report.findings:
    ...     print(finding.kind, finding.file, finding.line, finding.message)

    Findings are complete when the block ends, also when it raises. Inside a running session
    (`python -m dyngrad doctor`, or an outer `watch()`) it joins that session and returns its
    report, which the outer one completes. *dyngrad only*.
    """

    def __init__(self) -> None:
        self.session = None

    def __enter__(self) -> Report:
        if _active is not None:
            return _active.report
        self.session = Session()
        self.session.start()
        return self.session.report

    def __exit__(self, kind, exc, tb) -> None:
        if self.session is not None:
            self.session.stop(failed=kind is not None)


def watching() -> bool:
    """Whether a doctor session is running (*dyngrad only*)."""
    return _active is not None
