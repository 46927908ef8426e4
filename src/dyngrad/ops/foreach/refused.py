"""The in-place foreach overloads PyTorch records without a derivative (`_foreach_copy_`,
`_foreach_maximum_` with numbers, `_foreach_addcmul_` with a Tensor of scalars): each tensor's
new history is a `NotImplemented` node over it and every tensor of the other lists, whose
backward raises "derivative for _foreach_copy_ is not implemented"."""

from __future__ import annotations

from ..table.inplace import apply_inplace
from ..table.registry import NOT_IMPLEMENTED, defop

__all__ = ["copy_", "extremum_", "pointwise_"]


def _refusal(what: str):
    def formula(g):
        raise RuntimeError(f"derivative for {what} is not implemented")

    return formula


def _row(what: str, fwd):
    # variadic: element i's tensor, then all of the other lists' (PyTorch's edges)
    # (every tensor of the lists gets an edge, (None, 0) for one that needs no grad)
    return defop(
        what.strip("_") + "_refused", fwd, {"tensors": _refusal(what)}, node=NOT_IMPLEMENTED
    )


def _copy(xp, *tensors, index):
    x, src = tensors[0], tensors[1 + index]
    return xp.broadcast_to(src, x.shape).astype(x.dtype, copy=True)


def _pointwise(combine):
    def fwd(xp, *tensors, index, n, value):
        x, a, b = tensors[0], tensors[1 + index], tensors[1 + n + index]
        return x + value * combine(a, b)

    return fwd


COPY = _row("_foreach_copy_", _copy)
EXTREMUM = {
    "maximum": _row("_foreach_maximum_", lambda xp, *tensors, other: xp.maximum(tensors[0], other)),
    "minimum": _row("_foreach_minimum_", lambda xp, *tensors, other: xp.minimum(tensors[0], other)),
}
POINTWISE = {
    "addcmul": _row("_foreach_addcmul_", _pointwise(lambda a, b: a * b)),
    "addcdiv": _row("_foreach_addcdiv_", _pointwise(lambda a, b: a / b)),
}


def copy_(src: list):
    """Element i of `_foreach_copy_(self, src)`: `self[i].copy_(src[i])`, refused at backward."""

    def element(x, i):
        return apply_inplace(COPY, (x, *src), {"index": i}, name="copy_")

    return element


def extremum_(name: str):
    """Element i of `_foreach_maximum_(self, scalar)`, refused at backward."""
    row = EXTREMUM[name]
    return lambda x, s: apply_inplace(row, (x,), {"other": s}, name=name + "_")


def pointwise_(name: str, tensor1: list, tensor2: list, scalars):
    """Element i of `_foreach_addcmul_(self, t1, t2, scalars_tensor)`, refused at backward."""
    row, n = POINTWISE[name], len(tensor1)

    def element(x, i, value):
        attrs = {"index": i, "n": n, "value": value}
        return apply_inplace(row, (x, *tensor1, *tensor2, scalars), attrs, name=name + "_")

    return element
