"""dtype objects with PyTorch's names, and PyTorch's type-promotion rules."""

from __future__ import annotations

import numpy as np

__all__ = [
    "dtype",
    "promote_types",
    "promote_operands",
    "can_cast",
    "DTYPES",
    "is_bfloat16",
    "LOW_PRECISION",
]

# The NumPy dtypes PyTorch computes products and sums of in float32 and rounds once (float16,
# and bfloat16 once it is loaded: See Note [bfloat16 on demand]); a set for a fast `in`.
LOW_PRECISION = {np.dtype(np.float16)}

# Note [bfloat16 on demand]
# NumPy has no bfloat16: ml_dtypes gives it, and importing ml_dtypes costs 0.4-2.5 s (its C
# extension registers casts and ufuncs for a dozen types), more than the rest of dyngrad. So
# it is imported when bfloat16 is first used: `bfloat16.np` is an empty slot until then, and
# reading it runs `dtype.__getattr__` (Python calls it only for a missing attribute), which
# imports ml_dtypes and fills the slot; later reads cost what any slot read costs. Code that
# only asks whether an array *is* bfloat16 asks `is_bfloat16(array.dtype)`, which imports
# nothing: a NumPy dtype of kind "V" (void) never reaches a tensor except as bfloat16
# (`from_numpy_dtype` refuses structured and raw-bytes dtypes), so kind "V" means bfloat16.
# `finfo` gives machine limits for every float dtype, bfloat16's through ml_dtypes.


class dtype:
    """Matches `torch.dtype`: a named element type backed by a NumPy dtype."""

    __slots__ = (
        "name",
        "np",
        "itemsize",
        "is_floating_point",
        "is_complex",
        "is_signed",
        "_category",
        "_legacy",
    )

    def __init__(self, name: str, np_dtype, category: int, legacy: str, itemsize: int = 0):
        self.name = name
        if np_dtype is not None:  # None: bfloat16, filled in on first use
            self.np = np.dtype(np_dtype)
        self.itemsize = itemsize or self.np.itemsize
        self.is_floating_point = category == 2
        self.is_complex = category == 3
        self.is_signed = name not in ("uint8", "bool")
        self._category = category  # 0 bool, 1 integer, 2 floating, 3 complex
        self._legacy = legacy  # "Float" in "torch.FloatTensor"

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __getattr__(self, name: str):
        # only reached for an empty slot: bfloat16's NumPy dtype before its first use
        if name != "np" or self.name != "bfloat16":
            raise AttributeError(f"'torch.dtype' object has no attribute '{name}'")
        import ml_dtypes  # See Note [bfloat16 on demand]

        np_dtype = np.dtype(ml_dtypes.bfloat16)
        dtype.np.__set__(self, np_dtype)
        _BY_NP[np_dtype] = self
        LOW_PRECISION.add(np_dtype)
        return np_dtype

    def __reduce__(self):
        return (_by_name, (self.name,))

    def to_complex(self) -> dtype:
        return complex128 if self is float64 else complex64

    def to_real(self) -> dtype:
        return float64 if self is complex128 else (float32 if self is complex64 else self)


bool_ = dtype("bool", np.bool_, 0, "Bool")
uint8 = dtype("uint8", np.uint8, 1, "Byte")
int8 = dtype("int8", np.int8, 1, "Char")
int16 = dtype("int16", np.int16, 1, "Short")
int32 = dtype("int32", np.int32, 1, "Int")
int64 = dtype("int64", np.int64, 1, "Long")
float16 = dtype("float16", np.float16, 2, "Half")
bfloat16 = dtype("bfloat16", None, 2, "BFloat16", itemsize=2)  # Note [bfloat16 on demand]
float32 = dtype("float32", np.float32, 2, "Float")
float64 = dtype("float64", np.float64, 2, "Double")
complex64 = dtype("complex64", np.complex64, 3, "ComplexFloat")
complex128 = dtype("complex128", np.complex128, 3, "ComplexDouble")

DTYPES = (
    bool_,
    uint8,
    int8,
    int16,
    int32,
    int64,
    float16,
    bfloat16,
    float32,
    float64,
    complex64,
    complex128,
)
# PyTorch's aliases: torch.float is float32, torch.long is int64, ...
ALIASES = {
    "float": float32,
    "double": float64,
    "half": float16,
    "long": int64,
    "int": int32,
    "short": int16,
    "cfloat": complex64,
    "cdouble": complex128,
    "bool": bool_,
}

_BY_NP = {d.np: d for d in DTYPES if d is not bfloat16}  # bfloat16 joins on first use
_BY_NAME = {d.name: d for d in DTYPES} | ALIASES


def _by_name(name: str) -> dtype:
    return _BY_NAME[name]


def is_bfloat16(np_dtype: np.dtype) -> bool:
    """Whether an array's NumPy dtype is bfloat16 (See Note [bfloat16 on demand])."""
    return np_dtype.kind == "V"


def finfo(np_dtype):
    """NumPy's `finfo` for a float NumPy dtype, bfloat16 included."""
    if np_dtype.kind != "V":
        return np.finfo(np_dtype)
    import ml_dtypes  # See Note [bfloat16 on demand]

    return ml_dtypes.finfo(np_dtype)


def from_numpy_dtype(np_dtype) -> dtype:
    """The dyngrad dtype of a NumPy dtype; raises PyTorch's TypeError for unsupported ones."""
    np_dtype = np.dtype(np_dtype)
    try:
        return _BY_NP[np_dtype]
    except KeyError:
        if np_dtype.kind == "V" and np_dtype.type.__name__ == "bfloat16":
            return bfloat16 if bfloat16.np == np_dtype else _unsupported(np_dtype)
        return _unsupported(np_dtype)


def _unsupported(np_dtype: np.dtype):
    raise TypeError(
        f"can't convert np.ndarray of type numpy.{np_dtype.name}. The only "
        "supported types are: float64, float32, float16, complex64, complex128, int64, "
        "int32, int16, int8, uint8, and bool."
    )


def _promote_pair(a: dtype, b: dtype) -> dtype:
    if a is b:
        return a
    if {a, b} == {float64, complex64}:  # the complex type must keep float64's precision
        return complex128
    if a._category != b._category:
        return a if a._category > b._category else b
    if a._category == 2 and {a, b} == {float16, bfloat16}:
        return float32
    if a._category == 2 and bfloat16 in (a, b):
        return b if a is bfloat16 else a
    return _BY_NP[np.promote_types(a.np, b.np)]


_PROMOTE = {(a, b): _promote_pair(a, b) for a in DTYPES for b in DTYPES}


def promote_types(type1: dtype, type2: dtype) -> dtype:
    """Matches `torch.promote_types`."""
    return _PROMOTE[type1, type2]


def scalar_dtype(value, default_float: dtype) -> dtype:
    """The dtype PyTorch gives a Python number standing alone."""
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return int64
    if isinstance(value, complex):
        return default_float.to_complex()
    return default_float


def promote_operands(dims: list[dtype], zero_dims: list[dtype], scalars: list[dtype]) -> dtype:
    """PyTorch's three-tier promotion: dimensioned tensors, then 0-d tensors, then numbers.

    A lower tier only matters when its category is higher than every tier above it
    (`float32 tensor + float64 0-d tensor` stays float32; `int tensor + 2.5` is float32).
    """
    result = None
    for tier in (dims, zero_dims, scalars):
        if not tier:
            continue
        tier_type = tier[0]
        for d in tier[1:]:
            tier_type = _PROMOTE[tier_type, d]
        if result is None:
            result = tier_type
        elif tier_type._category > result._category:
            # complex number with a float tensor keeps the tensor's precision
            if tier_type._category == 3 and result._category == 2:
                result = result.to_complex()
            else:
                result = tier_type
    return result


def can_cast(from_: dtype, to: dtype) -> bool:
    """Matches `torch.can_cast`: casting may not lower the category (float -> int, int -> bool)."""
    return from_._category <= to._category


def is_floating(d: dtype) -> bool:
    return d._category == 2


class _Defaults:
    float = float32


defaults = _Defaults()


def get_default_dtype() -> dtype:
    """Matches `torch.get_default_dtype`."""
    return defaults.float


def set_default_dtype(d: dtype) -> None:
    """Matches `torch.set_default_dtype`: only floating dtypes are accepted."""
    if not isinstance(d, dtype) or d._category != 2:
        raise TypeError("only floating-point types are supported as the default type")
    defaults.float = d


float_ = float32  # torch.float
int_ = int32  # torch.int
double, half, long, short = float64, float16, int64, int16
cfloat, cdouble = complex64, complex128
