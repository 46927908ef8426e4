"""Random number generators: `torch.Generator` and the default one behind `manual_seed`."""

# Note [torch's CPU random streams]
# A generator is PyTorch's CPU engine: mt19937 seeded with the low 32 bits of the seed (the
# classic init_genrand), so `manual_seed(s)` gives PyTorch's numbers. NumPy's MT19937 bit
# generator is the same engine; its `random_raw` hands out the 32-bit words in C. PyTorch's
# `random()` is one word, `random64()` two (the first is the high half). How each
# distribution turns words into values is in `sampling.py` and `normal_sampling.py`.
# A generator also caches the second value of a scalar Box-Muller pair, as PyTorch does, and
# `get_state` writes PyTorch's own 5056-byte layout, so states travel both ways.

from __future__ import annotations

import os
import struct

import numpy as np

from .device import device as Device

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed"]


# A generator's state is a uint8 Tensor, a layer above this one: the tensor module hands its
# wrapper here when it loads (See Note [Calls up the layers] in _tensor.py).
as_tensor = None

DEFAULT_SEED = 67280421310721  # a new torch.Generator()'s seed
WORDS = 624  # mt19937's state
# PyTorch's CPUGeneratorImplState: seed, left, seeded, next, 624 words stored as uint64, the
# cached double normal (x, y, rho, valid), then the cached float normal and its flag.
_HEAD = struct.Struct("<QiiQ")
_DOUBLE_CACHE = struct.Struct("<dddi")
_FLOAT_CACHE = struct.Struct("<f?")
_WORDS_AT = _HEAD.size
_DOUBLE_AT = _WORDS_AT + 8 * WORDS
_FLOAT_AT = 5048
STATE_BYTES = 5056
_32 = np.uint64(32)


def _seed_value(seed) -> int:
    if not isinstance(seed, (int, np.integer)):
        raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
    seed = int(seed)
    if not -(2**63) <= seed < 2**64:
        raise ValueError("Overflow when unpacking long long")
    return seed & (2**64 - 1)  # negative seeds wrap, as PyTorch's uint64 does


def _init_genrand(engine: np.random.MT19937, seed32: int) -> None:
    """Seed `engine` as std::mt19937(seed32) and PyTorch are seeded (NumPy's legacy seeding
    is exactly that, and is what RandomState(seed32) does)."""
    legacy = getattr(engine, "_legacy_seeding", None)
    if legacy is not None:
        legacy(seed32)
    else:
        key = np.random.RandomState(seed32).get_state(legacy=False)["state"]["key"]
        _set_key(engine, key, WORDS)


def _set_key(engine: np.random.MT19937, key: np.ndarray, pos: int) -> None:
    engine.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}


class Generator:
    """Matches `torch.Generator` (CPU): PyTorch's mt19937, so seeds give PyTorch's numbers.

    See Note [torch's CPU random streams].
    """

    __slots__ = (
        "device",
        "_seed",
        "_engine",
        "_words",
        "_fresh",
        "next_double_normal",
        "next_float_normal",
    )

    def __init__(self, device="cpu"):
        self.device = Device(device)
        self.manual_seed(DEFAULT_SEED)

    def _made_engine(self):
        # Note [The engine on first draw]: the mt19937 engine is made, and seeded, when first
        # needed (`self._engine or self._made_engine()`): NumPy's random module loads with it,
        # a sixth of `import dyngrad`, and many generators (the default one among them) are
        # seeded again before they draw.
        self._engine = np.random.MT19937(np.random.SeedSequence(0))  # re-seeded right away
        _init_genrand(self._engine, self._seed & 0xFFFFFFFF)
        # NumPy's full-range 64-bit integers are two raw words, high half first: PyTorch's
        # random64(); worth its call overhead for long runs only
        self._words = np.random.Generator(self._engine).integers
        return self._engine

    def manual_seed(self, seed: int) -> Generator:
        self._seed = _seed_value(seed)
        self._engine = self._words = None  # made, seeded, at the next draw (Note above)
        self._fresh = True  # seeded and not drawn from: PyTorch's state says next=0
        self.next_double_normal = None  # the cached second value of a Box-Muller pair
        self.next_float_normal = None
        return self

    def seed(self) -> int:
        """Matches `torch.Generator.seed`: a non-deterministic 64-bit seed, then used."""
        new = int.from_bytes(os.urandom(8), "little")
        self.manual_seed(new)
        return new

    def initial_seed(self) -> int:
        return self._seed

    def random(self, n: int) -> np.ndarray:
        """PyTorch's `random()`, n times: 32-bit words (in a uint64 array)."""
        self._fresh = False
        return (self._engine or self._made_engine()).random_raw(n)

    def random64(self, n: int) -> np.ndarray:
        """PyTorch's `random64()`, n times: two words each, the first the high half."""
        self._fresh = False
        if n >= 2048:
            if self._engine is None:
                self._made_engine()
            return self._words(0, 0xFFFFFFFFFFFFFFFF, n, dtype=np.uint64, endpoint=True)
        words = (self._engine or self._made_engine()).random_raw(2 * n)
        high = words[0::2]
        high <<= _32
        high |= words[1::2]
        return high

    def get_state(self):
        """Matches `torch.Generator.get_state`: PyTorch's 5056-byte layout, a uint8 tensor."""
        return as_tensor(np.frombuffer(self._state_bytes(), dtype=np.uint8).copy())

    def set_state(self, new_state) -> Generator:
        """Matches `torch.Generator.set_state` (a state from dyngrad or from PyTorch)."""
        array = new_state.numpy() if hasattr(new_state, "numpy") else None
        if not isinstance(array, np.ndarray) or array.dtype != np.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        raw = array.tobytes()
        if len(raw) != STATE_BYTES:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {STATE_BYTES} but found the input "
                f"RNG state size to be {len(raw)}"
            )
        self._load_state_bytes(raw)
        return self

    def clone_state(self) -> Generator:
        """Matches `torch.Generator.clone_state`: a new generator in this one's state."""
        clone = Generator(self.device)
        clone._load_state_bytes(self._state_bytes())
        return clone

    def get_offset(self) -> int:
        raise RuntimeError("CPU Generator does not use offset")

    def set_offset(self, offset: int) -> Generator:
        raise RuntimeError("CPU Generator does not use offset")

    def __reduce__(self):
        return (Generator, (self.device,), self._state_bytes())

    def __setstate__(self, raw: bytes) -> None:
        self._load_state_bytes(raw)

    def _state_bytes(self) -> bytes:
        state = (self._engine or self._made_engine()).state["state"]
        pos = int(state["pos"])
        # PyTorch counts `left` down to the next regeneration and `next` up from the last one
        nxt = (0 if self._fresh else WORDS) if pos >= WORDS else pos
        left = WORDS + 1 - nxt if 0 < nxt < WORDS else 1
        out = bytearray(STATE_BYTES)
        _HEAD.pack_into(out, 0, self._seed, left, 1, nxt)
        out[_WORDS_AT:_DOUBLE_AT] = state["key"].astype("<u8").tobytes()
        cached = self.next_double_normal
        _DOUBLE_CACHE.pack_into(out, _DOUBLE_AT, 0.0, cached or 0.0, 0.0, cached is not None)
        cached = self.next_float_normal
        _FLOAT_CACHE.pack_into(out, _FLOAT_AT, cached or 0.0, cached is not None)
        return bytes(out)

    def _load_state_bytes(self, raw: bytes) -> None:
        seed, left, seeded, nxt = _HEAD.unpack_from(raw, 0)
        if not (seeded and 0 < left <= WORDS and nxt <= WORDS):
            raise RuntimeError("Invalid mt19937 state")
        key = np.frombuffer(raw, "<u8", WORDS, _WORDS_AT).astype(np.uint32)
        self._seed = seed
        _set_key(self._engine or self._made_engine(), key, WORDS if left == 1 else nxt)
        self._fresh = left == 1 and nxt == 0
        _, y, _, valid = _DOUBLE_CACHE.unpack_from(raw, _DOUBLE_AT)
        self.next_double_normal = y if valid else None
        value, valid = _FLOAT_CACHE.unpack_from(raw, _FLOAT_AT)
        self.next_float_normal = float(np.float32(value)) if valid else None


# PyTorch seeds its default generator non-deterministically at start-up
default_generator = Generator().manual_seed(int.from_bytes(os.urandom(8), "little"))


def manual_seed(seed: int) -> Generator:
    """Matches `torch.manual_seed`."""
    return default_generator.manual_seed(int(seed))


def seed() -> int:
    """Matches `torch.seed`."""
    return default_generator.seed()


def initial_seed() -> int:
    """Matches `torch.initial_seed`."""
    return default_generator.initial_seed()


def generator_of(generator: Generator | None) -> Generator:
    """`generator`, or the default one when None."""
    return generator or default_generator


def numpy_generator(generator: Generator | None) -> np.random.Generator:
    """A NumPy generator seeded by one 64-bit draw of `generator`: for the samplers whose
    PyTorch algorithm dyngrad does not reproduce (poisson, gamma, dirichlet), so that a seed
    still fixes their values."""
    seed = int(generator_of(generator).random64(1)[0])
    return np.random.Generator(np.random.PCG64(seed))
