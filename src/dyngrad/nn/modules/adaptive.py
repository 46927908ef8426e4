"""`AdaptiveLogSoftmaxWithLoss`: a softmax over many classes, split into a head (the frequent
classes and one entry per cluster) and smaller tail clusters (Grave et al., 2016)."""

from __future__ import annotations

from collections import namedtuple

from ...ops.reduction.reduce_ops import argmax
from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


def _check_cutoffs(cutoffs: list, n_classes: int) -> None:
    if not cutoffs:
        raise ValueError("cutoffs should be a sequence of length larger than 0")
    if (
        cutoffs != sorted(cutoffs)
        or min(cutoffs) <= 0
        or max(cutoffs) > n_classes - 1
        or len(set(cutoffs)) != len(cutoffs)
        or any(int(c) != c for c in cutoffs)
    ):
        raise ValueError(
            "cutoffs should be a sequence of unique, positive integers sorted in an increasing "
            "order, where each value is between 1 and n_classes-1"
        )


def _check_shapes(input, target) -> None:
    if target.dim() == 1:
        if input.size(0) != target.size(0):
            raise RuntimeError("Input and target should have the same size in the batch dimension.")
        if input.dim() != 2:
            raise RuntimeError(
                f"1D target tensor expects 2D input tensors, but found inputs with size "
                f"{input.size()}"
            )
    elif target.dim() == 0:
        if input.dim() != 1:
            raise RuntimeError(
                f"0D target tensor expects 1D input tensors, but found inputs with size "
                f"{input.size()}"
            )
    else:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")


class AdaptiveLogSoftmaxWithLoss(Module):
    """Matches `torch.nn.AdaptiveLogSoftmaxWithLoss`: the same modules, initial numbers,
    outputs and nodes (`output` ends in the in-place add of the head's log-probability)."""

    def __init__(
        self,
        in_features: int,
        n_classes: int,
        cutoffs,
        div_value: float = 4.0,
        head_bias: bool = False,
        device=None,
        dtype=None,
    ):
        super().__init__()
        cutoffs = list(cutoffs)
        _check_cutoffs(cutoffs, n_classes)
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        kwargs = {"device": device, "dtype": dtype}
        self.head = Linear(in_features, self.head_size, bias=head_bias, **kwargs)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(
                Sequential(
                    Linear(in_features, hidden, bias=False, **kwargs),
                    Linear(hidden, size, bias=False, **kwargs),
                )
            )

    def reset_parameters(self) -> None:
        self.head.reset_parameters()
        for projection in self.tail:
            for layer in projection:
                layer.reset_parameters()

    def forward(self, input_, target_):
        _check_shapes(input_, target_)
        batched = target_.dim() > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        output = input.new_zeros(target.size(0))
        # the head's column each row reads: its own class, or its cluster's entry
        head_column = target.new_empty(target.size(0))
        bounds = [0] + self.cutoffs
        placed = 0
        for i, (low, high) in enumerate(zip(bounds, bounds[1:])):
            in_cluster = (target >= low) & (target < high)
            rows = in_cluster.nonzero().squeeze()
            if rows.numel() == 0:
                continue
            placed += rows.numel()
            if i == 0:
                head_column.index_copy_(0, rows, target[in_cluster])
                continue
            head_column.index_fill_(0, rows, self.shortlist_size + i - 1)
            cluster = F.log_softmax(self.tail[i - 1](input.index_select(0, rows)), dim=1)
            picked = cluster.gather(1, (target[in_cluster] - low).unsqueeze(1))
            output.index_copy_(0, rows, picked.squeeze(1))
        if placed != target.size(0):
            raise RuntimeError(
                f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                f"[{target.min().item()}, {target.max().item()}] were found. "
            )
        head = F.log_softmax(self.head(input), dim=1)
        output += head.gather(1, head_column.unsqueeze(1)).squeeze()
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _full_log_prob(self, input, head_output):
        """Every class's log-probability: the head's shortlist, then each cluster's
        log-softmax plus the head's log-probability of the cluster."""
        head = F.log_softmax(head_output, dim=1)
        out = input.new_empty((head_output.size(0), self.n_classes))
        out[:, : self.shortlist_size] = head[:, : self.shortlist_size]
        for i, (start, stop) in enumerate(zip(self.cutoffs, self.cutoffs[1:])):
            cluster = F.log_softmax(self.tail[i](input), dim=1)
            out[:, start:stop] = cluster + head[:, self.shortlist_size + i].unsqueeze(1)
        return out

    def log_prob(self, input):
        """Matches `AdaptiveLogSoftmaxWithLoss.log_prob`: (N, n_classes) log-probabilities."""
        return self._full_log_prob(input, self.head(input))

    def predict(self, input):
        """Matches `AdaptiveLogSoftmaxWithLoss.predict`: the most likely class of each row."""
        head_output = self.head(input)
        output = argmax(head_output, dim=1)
        outside = output >= self.shortlist_size
        if not outside.any():
            return output
        if outside.all():
            return argmax(self._full_log_prob(input, head_output), dim=1)
        log_prob = self._full_log_prob(input[outside], head_output[outside])
        output[outside] = argmax(log_prob, dim=1)
        return output
