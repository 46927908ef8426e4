"""Matrix products: matmul and its named cases (mm, bmm, mv, dot)."""

from __future__ import annotations

from .registry import apply, defop
from .surface import public

MM = defop("mm", lambda xp, x, y: x @ y,
           {"x": lambda g, y: g.mm(y.t()), "y": lambda g, x: x.t().mm(g)})
BMM = defop("bmm", lambda xp, x, y: x @ y,
            {"x": lambda g, y: g.bmm(y.transpose(1, 2)),
             "y": lambda g, x: x.transpose(1, 2).bmm(g)})
MV = defop("mv", lambda xp, x, y: x @ y,
           {"x": lambda g, y: g.unsqueeze(1) * y, "y": lambda g, x: x.t().mv(g)})
DOT = defop("dot", lambda xp, x, y: xp.dot(x, y),
            {"x": lambda g, y: g * y, "y": lambda g, x: g * x})
# Batched, broadcasting matmul; PyTorch folds it into bmm plus a view, so its node is
# UnsafeViewBackward0. Broadcast batch dims are summed back by the node (see Note [One op]).
MATMUL = defop("matmul", lambda xp, x, y: xp.matmul(x, y),
               {"x": lambda g, y: g.matmul(y.mT), "y": lambda g, x: x.mT.matmul(g)},
               node="UnsafeViewBackward0")
# 1-D @ 2-D is unsqueeze, mm, squeeze in PyTorch: the top node is SqueezeBackward4
SQUEEZE_ROW = defop("squeeze_row", lambda xp, x: x[0], {"x": lambda g: g.unsqueeze(0)},
                    node="SqueezeBackward4", view=True)


def _dtype_check(a, b) -> None:
    if a._data.dtype != b._data.dtype:
        names = {"float32": "float", "float64": "double", "float16": "c10::Half",
                 "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int"}
        an, bn = str(a.dtype.name), str(b.dtype.name)
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{names.get(an, an)} != {names.get(bn, bn)}")


def _mm_shapes(a, b) -> str:
    return f"{a[0]}x{a[1]} and {b[0]}x{b[1]}"


@public
def mm(input, mat2):
    """Matches `torch.mm`."""
    a, b = input._data.shape, mat2._data.shape
    if len(a) != 2:
        raise RuntimeError(f"self must be a matrix")
    if len(b) != 2:
        raise RuntimeError("mat2 must be a matrix")
    if a[1] != b[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_mm_shapes(a, b)})")
    _dtype_check(input, mat2)
    return apply(MM, (input, mat2))


@public
def bmm(input, mat2):
    """Matches `torch.bmm`."""
    a, b = input._data.shape, mat2._data.shape
    if len(a) != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor")
    if len(b) != 3:
        raise RuntimeError(f"batch2 must be a 3D tensor")
    if b[:2] != (a[0], a[2]):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a[0]}, {a[2]}] but got: [{b[0]}, {b[1]}].")
    _dtype_check(input, mat2)
    return apply(BMM, (input, mat2))


@public
def mv(input, vec):
    """Matches `torch.mv`."""
    a, b = input._data.shape, vec._data.shape
    if len(a) != 2 or len(b) != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {len(a)}, {len(b)}")
    if a[1] != b[0]:
        raise RuntimeError(f"size mismatch, got input ({a[0]}), mat ({a[0]}x{a[1]}), vec "
                           f"({b[0]})")
    _dtype_check(input, vec)
    return apply(MV, (input, vec))


@public
def dot(input, tensor):
    """Matches `torch.dot`."""
    a, b = input._data.shape, tensor._data.shape
    if len(a) != 1 or len(b) != 1:
        raise RuntimeError(f"1D tensors expected, but got {len(a)}D and {len(b)}D tensors")
    if a[0] != b[0]:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{a[0]}] and src [{b[0]}] to have the "
            f"same number of elements, but got {a[0]} and {b[0]} elements respectively")
    _dtype_check(input, tensor)
    return apply(DOT, (input, tensor))


@public
def matmul(input, other):
    """Matches `torch.matmul`, including its node names for each case."""
    da, db = input._data.ndim, other._data.ndim
    if da == 0 or db == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{da}D and {db}D")
    if da == 1 and db == 1:
        return dot(input, other)
    if da == 2 and db == 1:
        return mv(input, other)
    if da == 1 and db == 2:
        return apply(SQUEEZE_ROW, (mm(input.unsqueeze(0), other),))
    if da == 2 and db == 2:
        return mm(input, other)
    if db == 1:
        return matmul(input, other.unsqueeze(-1)).squeeze(-1)
    if da == 1:
        return matmul(input.unsqueeze(0), other).squeeze(-2)
    a, b = input._data.shape, other._data.shape
    if a[-1] != b[-2]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{_batch(a)}, {a[-1]}] but got: [{_batch(b)}, {b[-2]}].")
    _dtype_check(input, other)
    return apply(MATMUL, (input, other))


def _batch(shape) -> int:
    n = 1
    for s in shape[:-2]:
        n *= s
    return n


public(matmul, name="__matmul__", function=False)
public(lambda self, other: matmul(other, self), name="__rmatmul__", function=False)
