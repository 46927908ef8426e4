"""Dropout layers: active in training mode, the identity in eval mode."""

from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = [
    "AlphaDropout",
    "Dropout",
    "Dropout1d",
    "Dropout2d",
    "Dropout3d",
    "FeatureAlphaDropout",
]


class _DropoutNd(Module):
    _functional = None

    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        return type(self)._functional(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Matches `torch.nn.Dropout`: masks come from dyngrad's generator."""

    _functional = staticmethod(F.dropout)


class Dropout1d(_DropoutNd):
    _functional = staticmethod(F.dropout1d)


class Dropout2d(_DropoutNd):
    """Matches `torch.nn.Dropout2d`: zeroes whole channels."""

    _functional = staticmethod(F.dropout2d)


class Dropout3d(_DropoutNd):
    _functional = staticmethod(F.dropout3d)


class AlphaDropout(_DropoutNd):
    """Matches `torch.nn.AlphaDropout`: dropout that keeps SELU's mean and variance.

    As in PyTorch, `inplace` is kept for the printed form but the forward never writes in place.
    """

    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Matches `torch.nn.FeatureAlphaDropout`: alpha dropout of whole channels."""

    def forward(self, input):  # `inplace` unused, as in PyTorch
        return F.feature_alpha_dropout(input, self.p, self.training)
