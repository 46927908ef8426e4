"""`SummaryWriter`: PyTorch's TensorBoard logger, writing event files with tensorboard's own
`EventFileWriter`."""

from __future__ import annotations

import os
import socket
import time
from datetime import datetime

from tensorboard.compat.proto.event_pb2 import Event
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from ..._tensor import Tensor
from ...graph.grad_mode import enable_grad
from . import events

__all__ = ["SummaryWriter"]


class SummaryWriter:
    """Matches `torch.utils.tensorboard.SummaryWriter`: scalars, histograms, text and the
    model graph, written to `log_dir` (default `runs/<date>_<host><comment>`).

    `add_graph` differs from PyTorch's: it draws the autograd graph of one forward pass (the
    backward nodes, `AddmmBackward0`, and the parameters they reach), not a TorchScript trace.
    """

    def __init__(
        self,
        log_dir: str | None = None,
        comment: str = "",
        purge_step: int | None = None,
        max_queue: int = 10,
        flush_secs: int = 120,
        filename_suffix: str = "",
    ) -> None:
        if not log_dir:
            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", f"{stamp}_{socket.gethostname()}{comment}")
        self.log_dir = log_dir
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer = None
        self.all_writers: dict = {}
        self._get_file_writer()

    def _get_file_writer(self) -> EventFileWriter:
        if self.file_writer is None:
            self.file_writer = self._writer_at(self.log_dir)
            if self.purge_step is not None:
                # tell TensorBoard to drop what an earlier run logged from this step on
                self.file_writer.add_event(
                    Event(step=self.purge_step, file_version="brain.Event:2")
                )
                self.purge_step = None
        return self.file_writer

    def _writer_at(self, log_dir: str) -> EventFileWriter:
        if log_dir not in self.all_writers:
            self.all_writers[log_dir] = EventFileWriter(
                log_dir, self.max_queue, self.flush_secs, self.filename_suffix
            )
        return self.all_writers[log_dir]

    def get_logdir(self) -> str:
        """The directory the event files are written to."""
        return self.log_dir

    def _add_summary(self, summary, global_step, walltime, writer=None) -> None:
        event = Event(summary=summary, wall_time=time.time() if walltime is None else walltime)
        if global_step is not None:
            event.step = int(global_step)
        (writer or self._get_file_writer()).add_event(event)

    def add_scalar(
        self,
        tag: str,
        scalar_value,
        global_step=None,
        walltime=None,
        new_style: bool = False,
        double_precision: bool = False,
    ) -> None:
        """Log one number (a Python number or a one-element tensor) at `global_step`."""
        self._add_summary(events.scalar(tag, scalar_value), global_step, walltime)

    def add_scalars(self, main_tag: str, tag_scalar_dict: dict, global_step=None, walltime=None):
        """Log several numbers under one chart: each goes to its own run, `log_dir/main_tag_tag`."""
        walltime = time.time() if walltime is None else walltime
        for tag, value in tag_scalar_dict.items():
            path = os.path.join(
                self._get_file_writer().get_logdir(), f"{main_tag.replace('/', '_')}_{tag}"
            )
            summary = events.scalar(main_tag, value)
            self._add_summary(summary, global_step, walltime, self._writer_at(path))

    def add_histogram(
        self, tag: str, values, global_step=None, bins="tensorflow", walltime=None, max_bins=None
    ) -> None:
        """Log the distribution of `values` (`bins` as NumPy's `histogram`, or "tensorflow")."""
        summary = events.histogram(tag, values, bins, max_bins)
        self._add_summary(summary, global_step, walltime)

    def add_text(self, tag: str, text_string: str, global_step=None, walltime=None) -> None:
        """Log a (Markdown) string."""
        self._add_summary(events.text(tag, text_string), global_step, walltime)

    def add_graph(self, model, input_to_model=None, verbose: bool = False, use_strict_trace=True):
        """Log the autograd graph of `model(input_to_model)` (see the class docstring)."""
        inputs = input_to_model if isinstance(input_to_model, (tuple, list)) else (input_to_model,)
        with enable_grad():
            outputs = model(*inputs)
        outputs = outputs if isinstance(outputs, (tuple, list)) else (outputs,)
        tensors = [t for t in outputs if isinstance(t, Tensor)]
        names = {id(p): name for name, p in model.named_parameters()}
        graph = events.graph_def(tensors, names)
        if verbose:
            print(graph)
        event = Event(graph_def=graph.SerializeToString(), wall_time=time.time())
        self._get_file_writer().add_event(event)

    def flush(self) -> None:
        """Write everything pending to disk."""
        for writer in self.all_writers.values():
            writer.flush()

    def close(self) -> None:
        """Flush and close every event file."""
        for writer in self.all_writers.values():
            writer.flush()
            writer.close()
        self.file_writer = None
        self.all_writers = {}

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, traceback) -> None:
        self.close()
