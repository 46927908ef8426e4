"""The named inputs a fuzz case may use, and the helpers its expressions call.

Each case is an expression over `t` (dyngrad or torch), `F` (its `nn.functional`) and the
names below; every case gets fresh tensors, so in-place ops cannot leak into the next case.
"""

from __future__ import annotations

import numpy as np

NAN, INF = float("nan"), float("inf")

ARRAYS = {
    "f": lambda: np.array([[0.5, -1.5, 2.0], [3.0, -0.0, 1.25]], np.float32),
    "d": lambda: np.array([[0.5, -1.5, 2.0], [3.0, -0.0, 1.25]], np.float64),
    "h": lambda: np.array([[0.5, -1.5, 2.0], [3.0, -0.0, 1.25]], np.float16),
    "i": lambda: np.array([[1, -2, 3], [0, 5, -6]], np.int64),
    "i32": lambda: np.array([[1, -2, 3], [0, 5, -6]], np.int32),
    "u8": lambda: np.array([[1, 2, 3], [250, 0, 7]], np.uint8),
    "b": lambda: np.array([[True, False, True], [False, False, True]]),
    "n": lambda: np.array([[NAN, INF, -INF], [1.0, NAN, -2.0]], np.float32),
    "z": lambda: np.array(1.5, np.float32),
    "zi": lambda: np.array(3, np.int64),
    "zb": lambda: np.array(True),
    "e": lambda: np.zeros((0,), np.float32),
    "ei": lambda: np.zeros((0,), np.int64),
    "e23": lambda: np.zeros((2, 0, 3), np.float32),
    "v": lambda: np.array([0.25, -1.0, 2.0, 4.0], np.float32),
    "vi": lambda: np.array([0, 2, 1, 3], np.int64),
    "idx": lambda: np.array([0, 2], np.int64),
    "idx2": lambda: np.array([[0, 2, 1], [1, 0, 0]], np.int64),
    "img": lambda: np.linspace(-1, 1, 50, dtype=np.float32).reshape(1, 2, 5, 5),
    "seq": lambda: np.linspace(-1, 1, 12, dtype=np.float32).reshape(1, 2, 6),
    "w1": lambda: np.linspace(-1, 1, 18, dtype=np.float32).reshape(3, 2, 3),
    "w2": lambda: np.linspace(-1, 1, 54, dtype=np.float32).reshape(3, 2, 3, 3),
    "logits": lambda: np.linspace(-2, 2, 12, dtype=np.float32).reshape(4, 3),
    "target": lambda: np.array([0, 2, 1, 2], np.int64),
    "emb": lambda: np.linspace(-1, 1, 15, dtype=np.float32).reshape(5, 3),
}


def make(lib, name):
    """A fresh tensor of `lib` for input `name`; `x_uint8` is three zeros of that dtype."""
    if name.startswith("x_"):
        return lib.zeros(3, dtype=getattr(lib, name[2:]))
    return lib.from_numpy(ARRAYS[name]())


def is_input(name: str) -> bool:
    return name in ARRAYS or name.startswith("x_")


def setitem(x, key, value):
    """`x[key] = value`, then `x`: lets an expression check what an assignment wrote."""
    x[key] = value
    return x


HELPERS = {"nan": NAN, "inf": INF, "setitem": setitem}
