"""Shape ops and views: view/reshape, transpose/permute, expand, squeeze/unsqueeze, clone.

Ops marked `view=True` return an array that shares memory with their input; their output
shares the input's version counter (see Note [Version counters]).
"""

from __future__ import annotations

import warnings

import numpy as np

from ..._tensor import Tensor
from ...runtime import dtypes
from ...runtime.memory_format import (
    check_format,
    check_rank,
    contiguous_format,
    in_format,
    is_contiguous_as,
    preserve_format,
)
from ..arrays.axis_sums import sum_to
from ..table.argument_errors import invalid_combination, legacy_type
from ..table.arguments import as_int, as_ints, int_list, is_int
from ..table.array_backward import FORMULAS, ArrayBackward
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public


def wrap_dim(dim: int, ndim: int) -> int:
    """A dim in [-ndim, ndim) made non-negative; PyTorch's IndexError otherwise."""
    if type(dim) is not int:
        dim = as_int(dim)
    n = ndim if ndim > 0 else 1
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim + n if dim < 0 else dim


def normalize_dims(dim, ndim: int) -> tuple:
    """A dim or sequence of dims as a sorted tuple of non-negative ints, checked for repeats."""
    if type(dim) is int:
        dims = (dim,)
    elif type(dim) is tuple and all(type(d) is int for d in dim):
        dims = dim
    else:
        dims = as_ints(dim)
    if ndim == 0:
        wrapped = [wrap_dim(d, 0) for d in dims]
        if len(set(wrapped)) != len(wrapped):
            raise RuntimeError("dim 0 appears multiple times in the list of dims")
        return ()
    out = tuple(wrap_dim(d, ndim) for d in dims)
    if len(set(out)) != len(out):
        repeated = next(d for d in out if out.count(d) > 1)
        raise RuntimeError(f"dim {repeated} appears multiple times in the list of dims")
    return out


def shape_arg(shape) -> tuple:
    """`view(2, 3)`, `view((2, 3))`, `view([2, 3])` and `view(torch.Size)` all mean (2, 3)."""
    if len(shape) == 1 and not isinstance(shape[0], (int, np.integer, Tensor)):
        shape = shape[0]
    if isinstance(shape, tuple) and all(type(s) is int for s in shape):
        return tuple(shape)  # the common case, already plain ints (a Size or an array's shape)
    return tuple(int(s) for s in shape)


def infer_shape(shape: tuple, numel: int) -> tuple:
    """Resolve one -1 in `shape`; PyTorch's error when the sizes do not fit."""
    known = 1
    unknown = None
    for i, s in enumerate(shape):
        if s == -1:
            if unknown is not None:
                raise RuntimeError("only one dimension can be inferred")
            unknown = i
        elif s < 0:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {list(shape)}")
        else:
            known *= s
    if unknown is not None:
        if known == 0 and numel == 0:
            raise RuntimeError(
                f"cannot reshape tensor of 0 elements into shape {list(shape)} "
                "because the unspecified dimension size -1 can be any value and "
                "is ambiguous"
            )
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = shape[:unknown] + (numel // known,) + shape[unknown + 1 :]
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


def _view_fwd(xp, x, *, shape):
    try:
        return xp.reshape(x, shape, copy=False)
    except ValueError:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        ) from None


# The view rows' backward kernels (Note [Array backwards]) are the same reshapes on arrays
VIEW = defop(
    "view",
    _view_fwd,
    {"x": lambda g, x_shape: g.reshape(x_shape)},
    view=True,
    array_backward=FORMULAS,
)
# PyTorch's reshape of a non-contiguous tensor that strides can still view: its own node
RESHAPE_ALIAS = defop(
    "reshape_alias",
    _view_fwd,
    {"x": lambda g, x_shape: g.reshape(x_shape)},
    node="ReshapeAliasBackward0",
    view=True,
    array_backward=FORMULAS,
)
UNSAFE_VIEW = defop(
    "unsafe_view",
    lambda xp, x, *, shape: xp.reshape(x, shape),
    {"x": lambda g, x_shape: g.reshape(x_shape)},
    array_backward=FORMULAS,
)
ALIAS = defop(
    "alias", lambda xp, x: x.view(), {"x": lambda g: g}, view=True, array_backward=FORMULAS
)
# `order` is "K" (PyTorch's preserve_format) but for reshape's copy, which is contiguous
CLONE = defop(
    "clone",
    lambda xp, x, *, order="K": x.copy(order=order),
    {"x": lambda g: g},
    array_backward=FORMULAS,
)
TRANSPOSE = defop(
    "transpose",
    lambda xp, x, *, dim0, dim1: xp.swapaxes(x, dim0, dim1),
    {"x": lambda g, dim0, dim1: g.transpose(dim0, dim1)},
    view=True,
    array_backward=ArrayBackward(lambda xp, needs, g, dim0, dim1: (g.swapaxes(dim0, dim1),)),
)
T = defop(
    "t",
    lambda xp, x: x.T,
    {"x": lambda g: g.t()},
    view=True,
    array_backward=ArrayBackward(lambda xp, needs, g: (g.T,)),
)
PERMUTE = defop(
    "permute",
    lambda xp, x, *, dims: xp.transpose(x, dims),
    {"x": lambda g, dims: g.permute(tuple(np.argsort(dims).tolist()))},
    view=True,
    array_backward=ArrayBackward(lambda xp, needs, g, dims: (g.transpose(np.argsort(dims)),)),
)


def _expand_fwd(xp, x, *, size):
    # the strided view built directly (np.broadcast_to costs ~4 us, ten times this), with
    # PyTorch's strides: 0 where a size changes, the input's elsewhere (a size-1 dim kept at
    # size 1 keeps its stride), and a new size-1 leading dim the stride of the dims inside it
    if type(x) is not np.ndarray:
        return xp.broadcast_to(x, size)
    lead = len(size) - x.ndim
    strides = [0] * len(size)
    for i in range(len(size) - 1, -1, -1):
        if i >= lead:
            own, stride = x.shape[i - lead], x.strides[i - lead]
        else:
            own, stride = 1, size[i + 1] * strides[i + 1] if i + 1 < len(size) else 0
        strides[i] = stride if own == size[i] else 0
    if x.flags.c_contiguous:
        out = np.ndarray(size, x.dtype, x, 0, tuple(strides))
        out.flags.writeable = False
        return out
    return np.lib.stride_tricks.as_strided(x, size, strides, writeable=False)


EXPAND = defop(
    "expand",
    _expand_fwd,
    {"x": lambda g, x_shape: g.sum_to_size(x_shape)},
    view=True,
    array_backward=ArrayBackward(lambda xp, needs, g: (g,)),
)
SQUEEZE = defop(
    "squeeze",
    lambda xp, x: x.reshape([s for s in x.shape if s != 1]),
    {"x": lambda g, x_shape: g.reshape(x_shape)},
    view=True,
    array_backward=FORMULAS,
)
SQUEEZE_DIM = defop(
    "squeeze_dim",
    lambda xp, x, *, dim: _squeeze_dims(x, (dim,)),
    {"x": lambda g, x_shape: g.reshape(x_shape)},
    node="SqueezeBackward1",
    view=True,
    array_backward=FORMULAS,
)
SQUEEZE_DIMS = defop(
    "squeeze_dims",
    lambda xp, x, *, dims: _squeeze_dims(x, dims),
    {"x": lambda g, x_shape: g.reshape(x_shape)},
    node="SqueezeBackward2",
    view=True,
    array_backward=FORMULAS,
)
UNSQUEEZE = defop(
    "unsqueeze",
    lambda xp, x, *, dim: xp.expand_dims(x, dim),
    {"x": lambda g, dim: g.squeeze(dim)},
    view=True,
    array_backward=FORMULAS,
)
SUM_TO_SIZE = defop(
    "sum_to_size",
    lambda xp, x, *, size: sum_to(xp, x, size),
    {"x": lambda g, x_shape: g.expand(x_shape)},
    node="SumBackward1",
    array_backward=ArrayBackward(lambda xp, needs, g, x_shape: (_expand_fwd(xp, g, size=x_shape),)),
)


def _squeeze_dims(x, dims):
    keep = [s for i, s in enumerate(x.shape) if not (i in dims and s == 1)]
    return x.reshape(keep)


@public
def reshape(input, *shape):
    """Matches `torch.reshape`: a view when the strides allow, else a copy."""
    shape = infer_shape(int_list("reshape", shape, "shape", 2), input._data.size)
    data = input._data
    flags = getattr(data, "flags", None)  # (CuPy's arrays have them too)
    if flags is not None and flags.c_contiguous:
        return apply(VIEW, (input,), {"shape": shape})
    try:
        np.reshape(data, shape, copy=False)
    except ValueError:  # not expressible as a view: a contiguous copy first, as PyTorch's
        # clone(memory_format=contiguous) (a layout-keeping copy would be copied once more)
        return apply(UNSAFE_VIEW, (apply(CLONE, (input,), {"order": "C"}),), {"shape": shape})
    return apply(RESHAPE_ALIAS, (input,), {"shape": shape})  # PyTorch's _reshape_alias


@public(function=False)
def view(self, *shape):
    """Matches `torch.Tensor.view`; `view(dtype)` reinterprets the bytes."""
    if len(shape) == 1 and isinstance(shape[0], dtypes.dtype):
        return view_as_dtype(self, shape[0])
    if shape and not (is_int(shape[0]) or len(shape) == 1 and isinstance(shape[0], (tuple, list))):
        raise invalid_combination("view", shape)  # neither view(dtype) nor view(*size)
    return apply(
        VIEW, (self,), {"shape": infer_shape(int_list("view", shape, position=2), self._data.size)}
    )


@public(function=False)
def view_as(self, other):
    return view(self, other._data.shape)


@public(function=False)
def reshape_as(self, other):
    return reshape(self, other._data.shape)


@public
def flatten(input, start_dim=0, end_dim=-1):
    """Matches `torch.flatten`."""
    ndim = input._data.ndim
    start, end = wrap_dim(start_dim, ndim), wrap_dim(end_dim, ndim)
    if ndim == 0:
        return reshape(input, (1,))
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return input
    s = input._data.shape
    return reshape(input, s[:start] + (-1,) + s[end + 1 :])


@public
def unflatten(input, dim, sizes):
    """Matches `torch.unflatten`."""
    d = wrap_dim(dim, input._data.ndim)
    sizes = as_ints(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    s = input._data.shape
    try:
        if -1 not in sizes and int(np.prod(sizes)) != s[d]:
            raise RuntimeError(
                f"unflatten: Provided sizes {list(sizes)} don't multiply up to "
                f"the size of dim {d} ({s[d]}) in the input tensor"
            )
        sizes = infer_shape(sizes, s[d])
    except (IndexError, RuntimeError) as exc:
        if str(exc).startswith("unflatten:"):
            raise
        # PyTorch wraps what its size inference raises (a 0-d input, two -1s)
        raise RuntimeError(f"unflatten got an unexpected error:\n{exc}") from None
    return view(input, s[:d] + tuple(sizes) + s[d + 1 :])


@public
def transpose(input, dim0, dim1):
    """Matches `torch.transpose`."""
    ndim = input._data.ndim
    d0, d1 = wrap_dim(dim0, ndim), wrap_dim(dim1, ndim)
    if ndim == 0:  # the only dims a 0-d tensor has are 0 and -1: nothing moves
        return input.alias()
    return apply(TRANSPOSE, (input,), {"dim0": d0, "dim1": d1})


swapaxes = public(transpose, name="swapaxes")
swapdims = public(transpose, name="swapdims")


@public
def t(input):
    """Matches `torch.t`: transpose of a tensor with at most 2 dims."""
    if input._data.ndim > 2:
        raise RuntimeError(
            f"t() expects a tensor with <= 2 dimensions, but self is {input._data.ndim}D"
        )
    return apply(T, (input,))


@public
def permute(input, *dims):
    """Matches `torch.permute`."""
    dims = int_list("permute", dims, "dims", 2)
    ndim = input._data.ndim
    if len(dims) != ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the "
            f"length of the desired ordering of dimensions i.e. input.dim() = {ndim} is not "
            f"equal to len(dims) = {len(dims)}"
        )
    dims = tuple(wrap_dim(d, ndim) for d in dims)
    if len(set(dims)) != ndim:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return apply(PERMUTE, (input,), {"dims": dims})


@public(function=False)
def expand(self, *sizes):
    """Matches `torch.Tensor.expand`: -1 keeps a size; new dims go in front."""
    sizes = int_list("expand", sizes, position=2)
    shape = self._data.shape
    if not shape and any(s < 0 for s in sizes):  # PyTorch's 0-d path multiplies them out first
        raise RuntimeError("numel: integer multiplication overflow")
    if (
        len(sizes) == len(shape)
        and -1 not in sizes
        and all(own == 1 or own == s for own, s in zip(shape, sizes))
    ):
        return apply(EXPAND, (self,), {"size": sizes})
    if len(sizes) < len(shape):
        raise RuntimeError(
            f"expand({legacy_type(self)}{{{list(shape)}}}, size={list(sizes)}): "
            "the number of "
            "sizes provided (%d) must be greater or equal to the number of dimensions in the "
            "tensor (%d)" % (len(sizes), len(shape))
        )
    lead = len(sizes) - len(shape)
    target = []
    for i in range(len(sizes) - 1, -1, -1):  # from the last dim, as PyTorch checks them
        s = sizes[i]
        own = shape[i - lead] if i >= lead else None
        if s == -1:
            if own is None:
                raise RuntimeError(
                    f"The expanded size of the tensor (-1) isn't allowed in a "
                    f"leading, non-existing dimension {i}"
                )
            s = own
        elif own is not None and own != s and own != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({own}) "
                f"at non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: "
                f"{list(shape)}"
            )
        target.append(s)
    return apply(EXPAND, (self,), {"size": tuple(reversed(target))})


@public(function=False)
def expand_as(self, other):
    return expand(self, other._data.shape)


@public
def broadcast_to(input, size):
    """Matches `torch.broadcast_to`."""
    return expand(input, tuple(size))


@public
def squeeze(input, dim=None):
    """Matches `torch.squeeze`: all size-1 dims, one dim, or a tuple of dims."""
    ndim = input._data.ndim
    if dim is None:
        return apply(SQUEEZE, (input,))
    if isinstance(dim, (tuple, list)):
        return apply(SQUEEZE_DIMS, (input,), {"dims": normalize_dims(dim, ndim)})
    d = wrap_dim(dim, ndim)
    return apply(SQUEEZE_DIM, (input,), {"dim": d if ndim else None})


@public
def unsqueeze(input, dim):
    """Matches `torch.unsqueeze`."""
    return apply(UNSQUEEZE, (input,), {"dim": wrap_dim(dim, input._data.ndim + 1)})


@public(function=False)
def sum_to_size(self, *size):
    """Matches `torch.Tensor.sum_to_size`."""
    size = int_list("sum_to_size", size, position=2)
    shape = self._data.shape
    if size == shape:
        return self
    if len(size) > len(shape) or any(
        s != t and s != 1 for s, t in zip(reversed(size), reversed(shape))
    ):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    return apply(SUM_TO_SIZE, (self,), {"size": size})


@public
def clone(input, *, memory_format=None):
    """Matches `torch.clone`: the input's layout kept, or `memory_format`'s.

    See Note [Memory formats]."""
    fmt = check_format("clone", memory_format)
    check_rank(input._data.ndim, fmt)
    return _clone_as(input, fmt)


def _clone_as(input, fmt):
    # a contiguous copy is the row's own (one copy, and replayed as is: Note [Replay]); the
    # channels-last formats are laid out after it
    if fmt is contiguous_format:
        return apply(CLONE, (input,), {"order": "C"})
    out = apply(CLONE, (input,))
    if fmt is not None and fmt is not preserve_format:
        out._data = in_format(out._data, fmt)
    return out


@public(function=False)
def contiguous(self, memory_format=contiguous_format):
    """Matches `torch.Tensor.contiguous`: itself when already laid out in `memory_format`,
    else a clone in that layout (See Note [Memory formats])."""
    fmt = check_format("contiguous", memory_format)
    if fmt is None:
        raise TypeError(
            "contiguous(): argument 'memory_format' must be torch.memory_format, not NoneType"
        )
    if is_contiguous_as(self._data, fmt):
        return self
    if fmt is preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    check_rank(self._data.ndim, fmt)
    return _clone_as(self, fmt)


@public(function=False)
def alias(self):
    return apply(ALIAS, (self,))


@public(function=False)
def as_subclass(self, cls):
    """Matches `torch.Tensor.as_subclass`: an alias of `self` (AliasBackward0, a view sharing
    its memory and version counter) whose class is `cls`; `cls.__init__` is not called."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(
            "Creating a Tensor subclass from a class that does not inherit from Tensor is not "
            "possible. Make sure your class inherits from Tensor."
        )
    out = apply(ALIAS, (self,))
    new = object.__new__(cls)  # the alias's fields in an object of `cls` (any slots it adds)
    for name in _TENSOR_FIELDS:
        setattr(new, name, getattr(out, name))
    new.__dict__.update(out.__dict__)
    return new


_TENSOR_FIELDS = tuple(n for n in Tensor.__slots__ if n not in ("__dict__", "__weakref__"))


def _property(fn):
    return property(fn)


def _T(self):
    # PyTorch's .T is a permute (PermuteBackward0), also for matrices
    ndim = self._data.ndim
    if ndim != 2:
        warnings.warn(_T_ZERO_D if ndim == 0 else _T_DEPRECATED, UserWarning, stacklevel=2)
    return permute(self, tuple(range(ndim - 1, -1, -1)))


_T_ZERO_D = "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases."
_T_DEPRECATED = (
    "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
    "and it will throw an error in a future release. Consider `x.mT` to transpose batches of "
    "matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a "
    "tensor."
)


def _mT(self):
    if self._data.ndim < 2:
        raise RuntimeError(
            "tensor.mT is only supported on matrices or batches of matrices. "
            f"Got {self._data.ndim}-D tensor."
        )
    return transpose(self, -2, -1)


public(_property(_T), name="T", function=False)
public(_property(_mT), name="mT", function=False)


def view_as_dtype(self, dtype):
    """`Tensor.view(dtype)`: the same bytes read as another dtype (no gradient)."""
    out = Tensor._wrap(self._data.view(dtype.np))
    out._version_counter = self._version_counter
    return out
