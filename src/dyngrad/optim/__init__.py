"""Optimizers (`torch.optim`): SGD, Adam, AdamW, RMSprop, Adagrad and the lr schedulers."""

from __future__ import annotations

from . import lr_scheduler
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "lr_scheduler"]
