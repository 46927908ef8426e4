"""`torch.random`: the default generator's seed and state, and `fork_rng`.

States are PyTorch's own bytes (See Note [torch's CPU random streams]): a state saved by
`torch.get_rng_state()` restores dyngrad's stream, and the other way round.
"""

from __future__ import annotations

import contextlib

from .runtime.random import default_generator, initial_seed, manual_seed, seed

__all__ = [
    "set_rng_state",
    "get_rng_state",
    "manual_seed",
    "seed",
    "initial_seed",
    "fork_rng",
    "thread_safe_generator",
]


def get_rng_state():
    """Matches `torch.get_rng_state`: the default CPU generator's state, a uint8 tensor."""
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    """Matches `torch.set_rng_state`."""
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(
    devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type=None
):
    """Matches `torch.random.fork_rng`: the CPU generator's state is restored on exit
    (dyngrad has no device generators to fork)."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)


def thread_safe_generator():
    """Matches `torch.random.thread_safe_generator`: a thread worker's own generator, None
    elsewhere (dyngrad's DataLoader workers are processes, so always None)."""
    return None
