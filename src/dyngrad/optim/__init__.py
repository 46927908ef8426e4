"""Optimizers (`torch.optim`): the Optimizer base, twelve update rules, the lr schedulers."""

from __future__ import annotations

from . import lr_scheduler, swa_utils
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adam_variants import Adamax, NAdam, RAdam
from .asgd import ASGD
from .lbfgs import LBFGS
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD

__all__ = [
    "Optimizer",
    "SGD",
    "Adam",
    "AdamW",
    "Adamax",
    "NAdam",
    "RAdam",
    "RMSprop",
    "Adagrad",
    "Adadelta",
    "ASGD",
    "Rprop",
    "LBFGS",
    "lr_scheduler",
    "swa_utils",
]
