"""The op spec table's vocabulary: how a spec names its inputs, samples and tolerances.

A spec's `fn(t, *inputs)` receives the module (`dyngrad` or the real `torch`) first, so the
same line runs on both: parity is checked by running it twice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class T:
    """A tensor input: shape, value range, dtype kind, and whether it is non-contiguous."""

    shape: tuple
    low: float | None = None
    high: float | None = None
    kind: str = "float"  # float | int | bool
    grad: bool = True
    nc: bool = False  # made by transposing a larger array: non-contiguous strides

    def make(self, module, rng: np.random.Generator, dtype_name: str, spec_domain):
        low = self.low if self.low is not None else spec_domain[0]
        high = self.high if self.high is not None else spec_domain[1]
        if self.kind == "int":
            return module.from_numpy(rng.integers(int(low), int(high), self.shape))
        if self.kind == "bool":
            return module.from_numpy(rng.random(self.shape) > 0.5)
        if self.nc:  # the transpose of a C-contiguous array has Fortran strides
            a = rng.uniform(low, high, tuple(reversed(self.shape))).T
        else:
            a = rng.uniform(low, high, self.shape)
        t = module.from_numpy(a).to(getattr(module, dtype_name))
        return t.requires_grad_(True) if self.grad else t


@dataclass
class OpSpec:
    """One op's test specification."""

    name: str
    fn: Callable
    samples: list
    covers: tuple = ()  # op-table rows this spec exercises, besides `name`
    domain: tuple = (-2.0, 2.0)
    ref: Callable | None = None  # NumPy reference: ref(np, *arrays) -> array
    grad: bool = True
    gradgrad: bool = True
    atol: float = 1e-5
    rtol: float = 1.3e-6
    grad_atol: float = 1e-5
    grad_rtol: float = 1e-3
    torch_names: bool = True  # compare grad_fn names with torch
    skip_dtypes: tuple = field(default_factory=tuple)

    def inputs(self, module, sample, dtype_name: str, seed: int):
        rng = np.random.default_rng(seed)
        return [
            s.make(module, rng, dtype_name, self.domain) if isinstance(s, T) else s for s in sample
        ]
