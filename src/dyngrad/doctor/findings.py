"""What the doctor found: kinds, findings (kind, file, line, message, hint), the report."""

from __future__ import annotations

import json
import os
import textwrap
from dataclasses import asdict, dataclass

__all__ = ["KINDS", "HINTS", "Finding", "Report"]

KINDS = (
    "param-no-grad",
    "graph-cut",
    "graph-growth",
    "missing-zero-grad",
    "clip-after-step",
    "eval-builds-graph",
    "train-mode-in-eval",
    "nonfinite",
    "grad-explode",
    "grad-vanish",
    "inplace-saved",
    "retain-graph-growth",
    "worker-graph",
    "backward-twice",
    "missing-set-epoch",
    "params-differ",
    "unsynced-grads",
    "double-softmax",
    "param-not-in-optimizer",
    "scheduler-misuse",
    "eval-mode-not-restored",
    "view-as-permute",
    "broadcast-loss",
    "softmax-wrong-dim",
    "amp-clip-scaled",
)

HINTS = {
    "param-no-grad": "use the parameter in forward(), delete it, or freeze it on purpose with "
    "requires_grad_(False)",
    "graph-cut": "keep the tensor in the graph (drop .detach()/.data/.numpy(), compute it "
    "outside no_grad); to freeze that part on purpose, call requires_grad_(False) on its "
    "parameters instead",
    "graph-growth": "carry a number, not the graph: total += loss.item() (or loss.detach())",
    "missing-zero-grad": "call optimizer.zero_grad() once per step (for gradient "
    "accumulation, after each step())",
    "clip-after-step": "clip between loss.backward() and optimizer.step()",
    "eval-builds-graph": "wrap evaluation in `with torch.no_grad():` (or "
    "torch.inference_mode()) and call model.eval()",
    "train-mode-in-eval": "call model.eval() before evaluating and model.train() after",
    "nonfinite": "check the op's inputs (log/sqrt/div of 0, exp of large values); "
    "torch.autograd.set_detect_anomaly(True) names the backward op",
    "grad-explode": "clip gradients (clip_grad_norm_), lower the learning rate, or fix the "
    "initialisation",
    "grad-vanish": "use ReLU-like activations, residual connections, normalisation or a "
    "better initialisation",
    "inplace-saved": "use the out-of-place op (x = x.op(...)) or clone() the tensor before "
    "modifying it",
    "retain-graph-growth": "detach state carried between iterations (h = h.detach()) and "
    "drop retain_graph=True",
    "worker-graph": "build the data without a graph: wrap __getitem__'s tensor work in "
    "`with torch.no_grad():` or use tensors that do not require grad",
    "backward-twice": "pass retain_graph=True to the first backward() if you need two, or "
    "run the forward again (and detach values carried across iterations)",
    "missing-set-epoch": "call sampler.set_epoch(epoch) at the start of each epoch, before "
    "iterating the DataLoader",
    "params-differ": "wrap the model in DistributedDataParallel (it broadcasts rank 0's "
    "parameters and averages gradients), and change parameters alike on every rank",
    "unsynced-grads": "run the last backward before each step outside no_sync(): that backward "
    "averages everything accumulated",
    "double-softmax": "return raw logits from the model: cross_entropy (CrossEntropyLoss) applies "
    "log_softmax itself; with an explicit log_softmax, use nll_loss (NLLLoss)",
    "param-not-in-optimizer": "build the optimizer after the model is complete, from "
    "model.parameters(); keep layers in nn.ModuleList/nn.ModuleDict, not Python lists",
    "scheduler-misuse": "call scheduler.step() after optimizer.step(); step an epoch-based "
    "scheduler once per epoch, outside the batch loop (or size it in batches: OneCycleLR, "
    "T_max=epochs * len(loader))",
    "eval-mode-not-restored": "call model.train() at the start of each training epoch (after "
    "the validation that called model.eval())",
    "view-as-permute": "reorder dimensions with permute()/transpose() (then .contiguous() or "
    "reshape() to flatten); view/reshape only to split or merge neighbouring dimensions",
    "broadcast-loss": "give the prediction and the target the same shape: pred.squeeze(1) (or "
    "target.unsqueeze(1)) before the loss",
    "softmax-wrong-dim": "normalise over the classes: softmax(logits, dim=1) (or dim=-1)",
    "amp-clip-scaled": "call scaler.unscale_(optimizer) after backward and before clipping, "
    "then scaler.step(optimizer) and scaler.update()",
}


@dataclass(frozen=True)
class Finding:
    """One problem: its kind, the user's line that caused it, what happened and the fix."""

    kind: str
    file: str
    line: int
    message: str
    hint: str

    def as_dict(self) -> dict:
        return asdict(self)

    @property
    def where(self) -> str:
        return f"{_short(self.file)}:{self.line}"


class Report:
    """The findings of one doctor session, one per kind and line, in the order found."""

    def __init__(self) -> None:
        self.findings: list[Finding] = []
        self._seen: set = set()
        self.spool: str | None = None  # a worker process appends its findings here
        self.rank: tuple[int, int] | None = None  # (rank, world size) in a distributed job

    def add(self, kind: str, site, message: str, hint: str | None = None) -> bool:
        """Record a finding at `site` = (file, line); False if that kind and line is known."""
        assert kind in KINDS, kind
        file, line = site if site is not None else ("<unknown>", 0)
        key = (kind, file, line)
        if key in self._seen:
            return False
        self._seen.add(key)
        finding = Finding(kind, file, line, message, hint or HINTS[kind])
        if self.spool is not None and os.getpid() != self._owner:
            self._spool_write(finding)
            return True
        self.findings.append(finding)
        return True

    def open_spool(self, path: str) -> None:
        self.spool, self._owner = path, os.getpid()

    def _spool_write(self, finding: Finding) -> None:
        with open(os.path.join(self.spool, f"worker-{os.getpid()}.jsonl"), "a") as f:
            f.write(json.dumps(finding.as_dict()) + "\n")

    def merge_spool(self) -> None:
        """Take in what worker processes found (they write it to the spool folder)."""
        if self.spool is None or not os.path.isdir(self.spool):
            return
        for name in sorted(os.listdir(self.spool)):
            with open(os.path.join(self.spool, name)) as f:
                for text in f:
                    item = json.loads(text)
                    self.add(
                        item["kind"], (item["file"], item["line"]), item["message"], item["hint"]
                    )

    def discard(self, kind: str) -> None:
        self.findings = [f for f in self.findings if f.kind != kind]

    def kinds(self) -> list[str]:
        return [f.kind for f in self.findings]

    def __iter__(self):
        return iter(self.findings)

    def __len__(self) -> int:
        return len(self.findings)

    def to_json(self) -> list[dict]:
        return [f.as_dict() for f in self.findings]

    def write_json(self, path: str) -> None:
        with open(path, "w") as f:
            json.dump(self.to_json(), f, indent=2)
            f.write("\n")

    def format_table(self, width: int = 100) -> str:
        """The findings as a table: kind and file:line, then the message and the hint."""
        who = "dyngrad doctor"
        if self.rank is not None:
            who += ", rank {} of {}".format(*self.rank)
        if not self.findings:
            return f"{who}: no findings"
        count = len(self.findings)
        lines = [f"{who}: {count} finding{'s' if count > 1 else ''}", ""]
        kind_w = max(len("KIND"), *(len(f.kind) for f in self.findings))
        where_w = max(len("WHERE"), *(len(f.where) for f in self.findings))
        lines.append(f"{'KIND':<{kind_w}}  {'WHERE':<{where_w}}  MESSAGE / HINT")
        indent = " " * (kind_w + where_w + 4)
        text_w = max(40, width - len(indent))
        for f in self.findings:
            message = textwrap.wrap(f.message, text_w) or [""]
            hint = textwrap.wrap("hint: " + f.hint, text_w)
            lines.append(f"{f.kind:<{kind_w}}  {f.where:<{where_w}}  {message[0]}")
            lines += [indent + text for text in message[1:] + hint]
        return "\n".join(lines)


def _short(path: str) -> str:
    # a path under the working directory reads better relative
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel
