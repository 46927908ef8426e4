"""`torch.nn.utils`: gradient clipping, flat parameter vectors, sequence padding (`rnn`),
the old weight_norm."""

from __future__ import annotations

from . import rnn, stateless  # noqa: F401 - torch.nn.utils.rnn, torch.nn.utils.stateless
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .weight_norm import remove_weight_norm, weight_norm

__all__ = [
    "clip_grad_norm_",
    "clip_grad_norm",
    "clip_grad_value_",
    "get_total_norm",
    "parameters_to_vector",
    "vector_to_parameters",
    "rnn",
    "weight_norm",
    "remove_weight_norm",
]
