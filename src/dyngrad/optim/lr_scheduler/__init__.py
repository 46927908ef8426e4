"""Learning-rate schedulers (`torch.optim.lr_scheduler`)."""

from __future__ import annotations

from .base import LRScheduler
from .composite import ChainedScheduler, SequentialLR
from .cyclic import CosineAnnealingWarmRestarts, CyclicLR
from .multiplicative import (
    ConstantLR,
    CosineAnnealingLR,
    ExponentialLR,
    LambdaLR,
    LinearLR,
    MultiplicativeLR,
    MultiStepLR,
    PolynomialLR,
    StepLR,
)
from .one_cycle import OneCycleLR
from .plateau import ReduceLROnPlateau


class _LRScheduler(LRScheduler):
    """PyTorch's old base name, kept for the scripts that subclass it (a subclass of
    LRScheduler, as PyTorch's: the built-in schedulers are not instances of it)."""


__all__ = [
    "LRScheduler",
    "LambdaLR",
    "MultiplicativeLR",
    "StepLR",
    "MultiStepLR",
    "ConstantLR",
    "LinearLR",
    "ExponentialLR",
    "SequentialLR",
    "CosineAnnealingLR",
    "ChainedScheduler",
    "ReduceLROnPlateau",
    "OneCycleLR",
    "PolynomialLR",
    "CyclicLR",
    "CosineAnnealingWarmRestarts",
]
