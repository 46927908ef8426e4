"""Tensor: an array plus autograd metadata (requires_grad, grad, grad_fn, version, base).

Op methods (`add`, `sum`, `__mul__`, ...) are attached by `dyngrad.ops` from the op table;
this module holds only what every tensor is.
"""

from __future__ import annotations

import copy
import sys
import warnings

import numpy as np

from ._handles import RemovableHandle
from ._tensor_errors import check_assigned_grad, check_grad_dtype
from ._tensor_str import tensor_repr
from .runtime import device_of, dtypes
from .runtime import random as _random
from .runtime.dtypes import from_numpy_dtype
from .runtime.memory_format import check_format, is_contiguous_as
from .runtime.sparse_coo import NOT_AN_ARRAY, SparseCOO, to_dense
from .runtime.storage import TypedStorage, UntypedStorage, bytes_of, warn_typed_storage_removal
from .size import Size

__all__ = [
    "Tensor",
    "VersionCounter",
    "InferenceCounter",
    "INFERENCE_THREADS",
    "above",
    "new_tensor",
]


class _Above:
    """# Note [Calls up the layers]

    The tensor is the lowest layer above the arrays (DESIGN.md), yet a few of its methods
    belong to higher ones: `backward()` runs the engine, `grad_fn` refreshes a stale view's
    history (ops), `Tensor(2, 3)` is a factory (ops), and a version bump records its line
    only while grad or anomaly mode is on (graph). Each of those layers hands its function
    (or state) to `above` when it loads; the tensor never imports upward.
    """

    grad_mode = None  # dyngrad.graph.grad_mode.state
    anomaly_mode = None  # dyngrad.graph.anomaly_mode.state
    backward = None  # dyngrad.autograd.engine.backward
    refresh_view = None  # dyngrad.ops views: refresh_view
    next_node_seq = None  # dyngrad.graph.node: numbers a detach_() among the nodes
    legacy_new = None  # dyngrad.ops creation: torch.Tensor(...), the legacy constructor


above = _Above()

_PACKAGE_DIR = __file__.rsplit("/", 1)[0]


class VersionCounter:
    """# Note [Version counters]

    Every in-place op bumps the counter of the tensor it writes. A view shares its base's
    counter, and so does `detach()`: writing through any alias is seen by all. A node records
    the version of each tensor it saves; at backward a changed version raises PyTorch's
    "modified by an inplace operation" error. The counter also remembers which op wrote last
    and from which line, so the error can name them (PyTorch cannot).
    """

    # Class-level defaults, no __init__: one is made for every op output, so creating it
    # must cost next to nothing; the instance gets its own fields on the first bump.
    value = 0
    last_op = None
    last_site = None

    def bump(self, op_name: str) -> None:
        self.value += 1
        self.last_op = op_name
        # The line costs a frame walk, so it is kept where the classic bug lives (an in-place
        # op in the forward, grad mode on) and in anomaly mode; not for optimizer updates and
        # gradient accumulation, which run with grad mode off.
        self.last_site = (
            user_site() if above.grad_mode.enabled or above.anomaly_mode.enabled else None
        )


def watch_bumps(observer):
    """Tell `observer(counter, op_name)` of every counted write until the returned function
    is called (a compiled call's trace: See Note [In-place steps] in _dynamo/trace.py). The
    class's `bump` is swapped while any observer watches, so that a bump costs nothing more
    otherwise; each observer tells its own thread's writes apart."""
    if not _bump_observers:
        VersionCounter.bump = _observed_bump
    _bump_observers.append(observer)

    def restore() -> None:
        _bump_observers.remove(observer)
        if not _bump_observers:
            VersionCounter.bump = _plain_bump

    return restore


_plain_bump = VersionCounter.bump
_bump_observers: list = []


def _observed_bump(self, op_name: str) -> None:
    _plain_bump(self, op_name)
    for observer in _bump_observers:
        observer(self, op_name)


class InferenceCounter(VersionCounter):
    """# Note [Inference tensors]

    A tensor made while inference mode is on (by a factory or an op, not a view of a normal
    tensor nor a normal tensor written in place) is an inference tensor, as in PyTorch: it
    tracks no version, so it can't be saved for backward and can't be written in place
    outside inference mode; a view of it is again an inference tensor (not a view, no
    history). Its counter is this class: the mark costs nothing on tensors made outside
    inference mode, and every place that reads or bumps a version meets PyTorch's errors.
    `new_tensor` reads the thread-local mode only while some thread is in inference mode
    (`INFERENCE_THREADS`, kept by `dyngrad.graph.grad_mode`).
    """

    @property
    def value(self) -> int:
        # Outside `Tensor._version` (which words it apart) a version is read to save a tensor
        # for backward: a node recording an inference tensor lands here.
        raise RuntimeError(INFERENCE_SAVED)

    def bump(self, op_name: str) -> None:
        if not above.grad_mode.inference:
            raise RuntimeError(INFERENCE_INPLACE)


INFERENCE_INPLACE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details."
)
INFERENCE_SAVED = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
    "`torch.inference_mode()`."
)
INFERENCE_THREADS: set = set()  # idents of the threads now in inference mode


def _new_counter() -> VersionCounter:
    if INFERENCE_THREADS and above.grad_mode.inference:
        return InferenceCounter()
    return VersionCounter()


def user_site(depth: int = 2) -> tuple[str, int] | None:
    """(file, line) of the nearest caller outside the dyngrad package."""
    frame = sys._getframe(depth)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
    if frame is None:
        return None
    return frame.f_code.co_filename, frame.f_lineno


SPARSE_NBYTES = (
    "nbytes is not defined for sparse tensors.  If you want the size of the constituent "
    "tensors, add the nbytes of the indices and values.  If you want the size of the  "
    "equivalent dense tensor, multiply numel() by element_size()"
)

NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information."
)


class Tensor:
    """Matches `torch.Tensor`: an n-dimensional array that can record its history."""

    # Slots are what every op reads or writes; rarely set fields fall back to the class
    # defaults below and live in __dict__ once set (see Note [Hot path] in ops/table/fast.py).
    __slots__ = (
        "_data",
        "_requires_grad",
        "_grad_fn",
        "_out_nr",
        "_grad",
        "_version_counter",
        "_base",
        "__dict__",
        "__weakref__",
    )
    __array_priority__ = 1000  # numpy scalars defer to Tensor's reflected operators
    _view_chain = None  # for a view: the (op, attrs) steps that replay it from its base
    _view_ver = 0  # the version at which a view's history was last made
    _creation = None  # how a view was made, when PyTorch forbids writing into it: See views.py
    _hooks = None
    _retains = False
    _accum = None  # a leaf's AccumulateGrad node, made on first use
    _post_hooks = None
    _detached_at = -1  # when a non-leaf was detach_()'d (a node number), for saved tensors

    def __new__(cls, *args, **kwargs):
        if args or kwargs:  # torch.Tensor(2, 3), torch.Tensor([1, 2]), torch.Tensor(other)
            return above.legacy_new(cls, *args, **kwargs)
        self = object.__new__(cls)
        self._init(np.empty((0,), np.float32), False, None)
        return self

    def __init__(self, *args, **kwargs):
        pass  # __new__ made it

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """PyTorch's default override: run `func`. (dyngrad calls no override itself; an
        override that defers to this one, `super().__torch_function__(...)`, still works.)"""
        return func(*args, **(kwargs or {}))

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # dyngrad's ops do not consult a subclass's override: say so where it is defined,
        # rather than let the class's behaviour silently go missing
        for hook in ("__torch_function__", "__torch_dispatch__"):
            if hook in cls.__dict__:
                warnings.warn(
                    f"dyngrad does not run the {hook} protocol: {cls.__name__}.{hook} will "
                    "not be called, and ops on its instances return plain Tensors.",
                    UserWarning,
                    stacklevel=2,
                )

    def _init(self, data, requires_grad: bool, grad_fn, output_nr: int = 0) -> None:
        self._data = data
        self._requires_grad = requires_grad
        self._grad_fn = grad_fn
        self._out_nr = output_nr
        self._grad = None
        self._version_counter = _new_counter()
        self._base = None

    # The one builder of tensors from arrays (a plain function, not a classmethod: it runs
    # for every op output and a classmethod call costs more); defined below the class.
    _wrap = None

    # ---- array facts ----------------------------------------------------------------------
    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim: int | None = None):
        """Matches `torch.Tensor.size`."""
        if dim is None:
            return self.shape
        return self._data.shape[_wrap_dim(dim, self._data.ndim)]

    def dim(self) -> int:
        return self._data.ndim

    ndimension = dim

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return int(self._data.size)

    nelement = numel

    @property
    def dtype(self) -> dtypes.dtype:
        return from_numpy_dtype(self._data.dtype)

    @property
    def device(self):
        return device_of(self._data)

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    @property
    def is_cpu(self) -> bool:
        return self.device.type == "cpu"

    @property
    def itemsize(self) -> int:
        return self._data.itemsize

    def element_size(self) -> int:
        return self._data.itemsize

    @property
    def nbytes(self) -> int:
        if type(self._data) is SparseCOO:
            raise RuntimeError(SPARSE_NBYTES)
        return int(self._data.nbytes)

    def is_floating_point(self) -> bool:
        return self._data.dtype.kind in "fV"  # V: bfloat16, See Note [bfloat16 on demand]

    def is_complex(self) -> bool:
        return self._data.dtype.kind == "c"

    def is_contiguous(self, memory_format=None) -> bool:
        """Matches `torch.Tensor.is_contiguous`, channels-last too: See Note [Memory formats]."""
        return is_contiguous_as(self._data, check_format("is_contiguous", memory_format))

    def stride(self, dim: int | None = None):
        data = self._data
        strides = tuple(s // data.itemsize for s in data.strides)
        if data.size == 0 and 0 in strides:  # NumPy's empty array: PyTorch's contiguous ones
            strides, step = [], 1
            for n in reversed(data.shape):
                strides.insert(0, step)
                step *= max(n, 1)
            strides = tuple(strides)
        return strides if dim is None else strides[_wrap_dim(dim, self._data.ndim)]

    def storage_offset(self) -> int:
        base = self._base._data if self._base is not None else self._data
        start = base.__array_interface__["data"][0]
        return (self._data.__array_interface__["data"][0] - start) // self._data.itemsize

    def data_ptr(self) -> int:
        return self._data.__array_interface__["data"][0]

    def untyped_storage(self) -> UntypedStorage:
        """Matches `torch.Tensor.untyped_storage`: the bytes of the whole memory this tensor
        views (its base's), shared: See Note [Storage objects]."""
        root = self._base._data if self._base is not None else self._data
        if type(root) is SparseCOO:
            raise NotImplementedError("Cannot access storage of SparseTensorImpl")
        if not isinstance(root, np.ndarray):
            raise NotImplementedError(
                f"Cannot access storage of a {self.device} tensor: dyngrad's storages are CPU "
                "memory only; call .cpu() first"
            )
        return UntypedStorage._wrap(bytes_of(root))

    def storage(self) -> TypedStorage:
        """Matches `torch.Tensor.storage` (deprecated there): the untyped storage read as
        elements of this tensor's dtype."""
        warn_typed_storage_removal()
        untyped = self.untyped_storage()
        return TypedStorage(wrap_storage=untyped, dtype=self.dtype, _internal=True)

    # ---- conversions ------------------------------------------------------------------------
    def item(self):
        """Matches `torch.Tensor.item`: the one element as a Python number."""
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        if type(self._data) is SparseCOO:
            return to_dense(self._data).item()
        return (
            self._data.reshape(()).item()
            if not dtypes.is_bfloat16(self._data.dtype)
            else float(self._data.reshape(()))
        )

    def tolist(self):
        if type(self._data) is SparseCOO:
            raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")
        if dtypes.is_bfloat16(self._data.dtype):
            return self._data.astype(np.float32).tolist()
        return self._data.tolist()

    def numpy(self, *, force: bool = False) -> np.ndarray:
        """Matches `torch.Tensor.numpy`: shares memory; refuses a tensor that requires grad
        while grad mode is on."""
        if type(self._data) is SparseCOO:  # (checked first, as PyTorch's)
            raise TypeError(NOT_AN_ARRAY)
        if self._requires_grad and not force and above.grad_mode.enabled:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead."
            )
        if type(self._data) is not np.ndarray:
            if not force:
                raise TypeError(
                    f"can't convert {self.device} device type tensor to numpy. Use Tensor.cpu() "
                    "to copy the tensor to host memory first."
                )
            return self._data.get()
        return self._data

    def __array__(self, dtype=None, copy=None):
        if self._requires_grad and above.grad_mode.enabled:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead."
            )
        return self._data if dtype is None else self._data.astype(dtype)

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise RuntimeError(
                "Boolean value of Tensor with more than one value is ambiguous"
                if self._data.size > 1
                else "Boolean value of Tensor with no values is ambiguous"
            )
        return bool(self._data.reshape(()))

    def __float__(self) -> float:
        if self._requires_grad:  # PyTorch warns for float() alone, not for item(), int() or bool()
            warnings.warn(
                "Converting a tensor with requires_grad=True to a scalar may lead to "
                "unexpected behavior.\nConsider using tensor.detach() first.",
                UserWarning,
                stacklevel=2,
            )
        return float(self._scalar("float"))

    def __int__(self) -> int:
        return int(self._scalar("int"))

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._data.reshape(()))

    def __complex__(self) -> complex:
        return complex(self._scalar("complex"))

    def _scalar(self, kind: str):
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self._data.reshape(())

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __contains__(self, element) -> bool:
        # any element equal, as PyTorch: without this, `in` would walk rows (and a 2-d
        # tensor would ask the truth of a row)
        if not isinstance(element, (Tensor, bool, int, float, complex, np.number, np.bool_)):
            raise RuntimeError(
                "Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                f"{type(element)}."
            )
        return bool((element == self).any())

    def __reversed__(self):
        return self if self._data.ndim == 0 else self.flip(0)

    def __delitem__(self, index):
        raise TypeError("Tensor does not support deleting items")

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self, *, tensor_contents=None) -> str:
        cls = type(self)
        if cls is Tensor or "_plain_repr" in cls.__dict__:  # Parameter's own class says so
            return tensor_repr(self)
        return tensor_repr(self, f"{cls.__name__}(")  # a subclass prints its name, as PyTorch's

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0:  # PyTorch formats a 0-d tensor as its number: f"{t}" -> 6.0
            return format(self.item(), spec)
        if spec:  # PyTorch defers to object.__format__, which takes no format spec
            raise TypeError(f"unsupported format string passed to {type(self).__name__}.__format__")
        return str(self)

    def __reduce_ex__(self, protocol):
        return (_rebuild, (self._data.copy(), self._requires_grad))

    def __deepcopy__(self, memo):
        if not self.is_leaf:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the "
                "deepcopy protocol at the moment.  If you were attempting to deepcopy a module, "
                "this may be because of a torch.nn.utils.weight_norm usage, see "
                "https://github.com/pytorch/pytorch/pull/103001"
            )
        new = type(self).__new__(type(self))
        new._init(self._data.copy(), self._requires_grad, None)
        if type(self) is not Tensor:
            # a subclass's own attributes, deep-copied as PyTorch's; not autograd's fields
            # (hooks, views, accumulator: Tensor's defaults), which PyTorch keeps in C
            own = {k: v for k, v in self.__dict__.items() if not hasattr(Tensor, k)}
            new.__dict__.update(copy.deepcopy(own, memo))
        if self._grad is not None:
            new._grad = self._grad.__deepcopy__(memo)
        memo[id(self)] = new
        return new

    # ---- autograd metadata --------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        if self._base is not None and self._view_ver != self._version_counter.value:
            try:  # an in-place op on the base may have given it history
                above.refresh_view(self)
            except RuntimeError:  # a view whose history can't be rebuilt: asked, not used
                pass
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if self._grad_fn is not None:
            if value:  # requires_grad_() lets this pass; the attribute does not
                raise RuntimeError("you can only change requires_grad flags of leaf variables.")
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        if value and not (self.is_floating_point() or self.is_complex()):
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if value and self.is_inference() and not above.grad_mode.inference:
            raise RuntimeError(
                "Setting requires_grad=True on inference tensor outside InferenceMode is not "
                "allowed."
            )
        self._requires_grad = bool(value)

    @requires_grad.deleter
    def requires_grad(self) -> None:
        raise RuntimeError(_UNDELETABLE["requires_grad"])

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Matches `torch.Tensor.requires_grad_`."""
        if not (requires_grad and self._grad_fn is not None):
            self.requires_grad = requires_grad
        return self

    @property
    def grad_fn(self):
        if self._base is not None and self._view_ver != self._version_counter.value:
            above.refresh_view(self)
        return self._grad_fn

    @property
    def is_leaf(self) -> bool:
        return self._grad_fn is None

    @property
    def output_nr(self) -> int:
        """Matches `torch.Tensor.output_nr`: which output of its grad_fn this tensor is."""
        if self._base is not None and self._view_ver != self._version_counter.value:
            above.refresh_view(self)
        return self._out_nr

    @property
    def volatile(self) -> bool:
        warnings.warn(
            "volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2
        )
        return False

    @property
    def grad(self):
        if self._grad_fn is not None and not self._retains:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    f"assigned grad expected to be a Tensor or None but got grad of type "
                    f"{type(value).__name__}"
                )
            check_assigned_grad(
                self, value, self.grad_dtype if self._grad_fn is None else self.dtype
            )
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def grad_dtype(self):
        """Matches `torch.Tensor.grad_dtype`: the dtype `.grad` must have (None: any), by
        default the tensor's own; gradients flowing in are cast to it."""
        check_grad_dtype(self, None, setting=False)
        chosen = self.__dict__.get("_grad_dtype", self)
        return self.dtype if chosen is self else chosen

    @grad_dtype.setter
    def grad_dtype(self, dtype) -> None:
        check_grad_dtype(self, dtype, setting=True)
        self._grad_dtype = dtype

    @property
    def retains_grad(self) -> bool:
        return self._retains

    def retain_grad(self) -> None:
        """Matches `torch.Tensor.retain_grad`: keep `.grad` on a non-leaf after backward."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None or self._retains:
            return
        self._retains = True
        self.grad_fn._retain_grad_of(self, self._out_nr)

    @property
    def _version(self) -> int:
        counter = self._version_counter
        if type(counter) is InferenceCounter:
            raise RuntimeError("Inference tensors do not track version counter.")
        return counter.value

    def is_inference(self) -> bool:
        """Matches `torch.Tensor.is_inference`: made in inference mode (Note [Inference
        tensors])."""
        return type(self._version_counter) is InferenceCounter

    def _is_view(self) -> bool:
        """Matches `torch.Tensor._is_view()` (a method, as torchviz calls it)."""
        return self._base is not None

    @property
    def data(self) -> Tensor:
        # Note [.data]: a new tensor on the same array, with its own version counter, so
        # writes through it are invisible to autograd: the reason `.data` is discouraged.
        return Tensor._wrap(self._data)

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        if self._requires_grad and not (value.is_floating_point() or value.is_complex()):
            raise RuntimeError(
                "data set to a tensor that requires gradients must be floating point or complex "
                "dtype"
            )
        self._data = value._data

    # Note [No __delattr__]
    # What PyTorch forbids deleting raises from its property's deleter, not from a
    # `__delattr__`: defining one (or `__setattr__`) takes every attribute store on every
    # tensor off CPython's fast path (~230 instructions instead of ~10; an op makes one tensor
    # in eight stores). So `del t._grad_fn`, a slot, is not caught, unlike PyTorch.
    @data.deleter
    def data(self) -> None:
        raise RuntimeError(_UNDELETABLE["data"])

    @property
    def _backward_hooks(self):
        return self._hooks  # the tensor's hooks by handle id, or None

    @_backward_hooks.setter
    def _backward_hooks(self, hooks) -> None:
        self._hooks = hooks  # PyTorch lets code replace the dict (an OrderedDict of hooks)

    @_backward_hooks.deleter
    def _backward_hooks(self) -> None:
        raise RuntimeError(_UNDELETABLE["_backward_hooks"])

    def detach(self) -> Tensor:
        """Matches `torch.Tensor.detach`: same array, no history, shared version counter."""
        out = Tensor._wrap(self._data)
        out._version_counter = self._version_counter
        return out

    def detach_(self) -> Tensor:
        """Matches `torch.Tensor.detach_`."""
        if self._base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
                "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
                "called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
            )
        if self._grad_fn is not None:  # a node that saved it before now can't use it
            self._detached_at = above.next_node_seq()
        self._grad_fn = None
        self._requires_grad = False
        self._out_nr = 0
        return self

    def register_hook(self, hook):
        """Matches `torch.Tensor.register_hook`: `hook(grad)` may return a new gradient."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is not None:
            return self.grad_fn._register_tensor_hook(self._out_nr, hook)
        if self._hooks is None:
            self._hooks = {}
        handle = RemovableHandle(self._hooks)
        self._hooks[handle.id] = hook
        return handle

    def register_post_accumulate_grad_hook(self, hook):
        """Matches `torch.Tensor.register_post_accumulate_grad_hook`: `hook(tensor)`."""
        if self._grad_fn is not None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors"
            )
        if self._post_hooks is None:
            self._post_hooks = {}
        handle = RemovableHandle(self._post_hooks)
        self._post_hooks[handle.id] = hook
        return handle

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Matches `torch.Tensor.backward`."""
        above.backward(self, gradient, retain_graph, create_graph, inputs=inputs)


# PyTorch's answers to `del t.<name>` for what a tensor can't be without
_UNDELETABLE = {
    "data": "Deleting tensor data is not allowed. Delete tensor instead!",
    "requires_grad": "requires_grad must be a bool",
    "_grad_fn": "Deletion of _grad_fn not allowed. Detach tensor instead!",
    "_backward_hooks": "Deletion of _backwards_hooks not allowed!",
}


def new_tensor(data, requires_grad: bool = False, grad_fn=None, output_nr: int = 0) -> Tensor:
    """A Tensor on `data` (taken as it is, no validation): every op output is built here (a
    view op's by `new_view` in ops/table/record.py, the same fields with its base's counter)."""
    # The fast forms inline this body (See Note [Generated fast forms]); a body with a local
    # of its own or a return before `return self` is called instead.
    self = _new(Tensor)
    self._data = data
    self._requires_grad = requires_grad
    self._grad_fn = grad_fn
    self._out_nr = output_nr
    self._grad = None
    self._version_counter = (
        VersionCounter()
        if not INFERENCE_THREADS or not above.grad_mode.inference
        else InferenceCounter()
    )
    self._base = None
    return self


_new = object.__new__
Tensor._wrap = staticmethod(new_tensor)


def _wrap_dim(dim: int, ndim: int) -> int:
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim % n


def _rebuild(data, requires_grad):
    return Tensor._wrap(data, requires_grad)


_random.as_tensor = Tensor._wrap  # Generator.get_state: See Note [Calls up the layers]
