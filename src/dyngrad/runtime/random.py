"""Random number generators: `torch.Generator` and the default one behind `manual_seed`."""

from __future__ import annotations

import ast

import numpy as np

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed"]


# A generator's state is a uint8 Tensor, a layer above this one: the tensor module hands its
# wrapper here when it loads (See Note [Calls up the layers] in _tensor.py).
as_tensor = None


class Generator:
    """Matches `torch.Generator` (CPU). Streams differ from PyTorch's: same seed, other numbers."""

    __slots__ = ("device", "_seed", "_rng")

    def __init__(self, device="cpu"):
        self.device = device
        self.manual_seed(67280421310721)  # PyTorch's default seed

    def manual_seed(self, seed: int) -> Generator:
        self._seed = int(seed)
        self._rng = np.random.Generator(np.random.PCG64(self._seed & (2**64 - 1)))
        return self

    def seed(self) -> int:
        new = int(np.random.SeedSequence().entropy) & (2**63 - 1)
        self.manual_seed(new)
        return new

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self):
        state = np.frombuffer(repr(self._rng.bit_generator.state).encode(), dtype=np.uint8)
        return as_tensor(state.copy())  # a uint8 tensor, as PyTorch returns

    def set_state(self, new_state) -> Generator:
        raw = bytes(new_state.numpy().tobytes()).decode()
        self._rng.bit_generator.state = _parse_state(raw)
        return self


def _parse_state(text: str) -> dict:

    return ast.literal_eval(text)


default_generator = Generator()


def manual_seed(seed: int) -> Generator:
    """Matches `torch.manual_seed`."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Matches `torch.seed`."""
    return default_generator.seed()


def initial_seed() -> int:
    """Matches `torch.initial_seed`."""
    return default_generator.initial_seed()


def rng_of(generator: Generator | None) -> np.random.Generator:
    return (generator or default_generator)._rng
