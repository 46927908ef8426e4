"""torch.save checkpoints read with `weights_only`: allowed names only, user-allowed ones too."""

from __future__ import annotations

import pickle
from collections import OrderedDict
from typing import TYPE_CHECKING

from ._checkpoint_names import (
    ALLOWED_VALUES,
    PLAIN_CALLABLES,
    TENSOR_FUNCTIONS,
    TENSOR_REBUILDERS,
    Allowed,
    AllowedCallable,
    PendingNumpyDtype,
    TensorType,
    dyngrad_object,
    qualified_name,
)
from ._checkpoint_pickle import RestrictedUnpickler
from ._checkpoint_records import Records, locate_pickle
from .runtime import dtypes

if TYPE_CHECKING:  # zipfile (and the pathlib it loads) is imported by load and save
    import zipfile

__all__ = ["load_weights_only", "UNSAFE_MESSAGE"]

UNSAFE_MESSAGE = (
    "Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it "
    "can result in arbitrary code execution. Do it only if you got the file from a trusted "
    "source."
)

# Note [Globals the user allows]
# Beyond tensors and containers, a `weights_only` load may use the classes and functions the
# user named with `torch.serialization.add_safe_globals` / `safe_globals` (a whole model's
# classes, say), as torch's loader does: such a name resolves to the user's object, REDUCE
# calls it, NEWOBJ runs its `__new__` and BUILD its `__setstate__` (or sets its attributes),
# and nothing else is imported or called. A torch name (`torch.nn.modules.linear.Linear`) is
# allowed by allowing dyngrad's object of that name (`dyngrad.nn.Linear`), so a model torch
# saved whole loads into dyngrad's classes.


def _unsupported_global(key: str, file: str) -> str:
    return (
        f"{file} can still be loaded, to do so you have two options, do those steps only if "
        f"you trust the source of the checkpoint.\n\t(1) {UNSAFE_MESSAGE}\n\t(2) "
        "Alternatively, to load with `weights_only=True` please check the recommended steps "
        "in the following error message.\n\tWeightsUnpickler error: Unsupported global: "
        f"GLOBAL {key} was not an allowed global by default. Please use "
        f"`torch.serialization.add_safe_globals([{key}])` or the "
        f"`torch.serialization.safe_globals([{key}])` context manager to allowlist this global "
        "if you trust this class/function.\n(A state_dict needs no trust: save "
        "`model.state_dict()` rather than the model, and load it into a model you build.)"
    )


class _TorchUnpickler(RestrictedUnpickler):
    def __init__(self, data: bytes, archive, prefix: str, name: str, user_globals: dict, **how):
        super().__init__(data, name)
        self.records = Records(archive, prefix, self, **how)
        self.user = user_globals
        self.trusted = {id(value): value for value in self.user.values()}

    def is_trusted(self, obj) -> bool:
        return self.trusted.get(id(obj)) is obj

    def find_class(self, module: str, name: str):
        key = qualified_name(module, name)
        if key in self.user and key.startswith("numpy."):
            # torch allows no NumPy name by default: the user's numpy.dtype, say, comes before
            # dyngrad's checked stand-in (which takes number types only)
            return self.user[key]
        if key in ALLOWED_VALUES:
            return ALLOWED_VALUES[key]
        if key in PLAIN_CALLABLES or key in TENSOR_REBUILDERS:
            return AllowedCallable(key)
        if key in self.user:
            return self.user[key]
        found = dyngrad_object(module, name)
        if found is not None and self.is_trusted(found):
            return found
        raise pickle.UnpicklingError(
            f"Weights only load failed. {_unsupported_global(key, self.name)}"
        )

    def call(self, func, args: tuple):
        if isinstance(func, AllowedCallable):
            if func.name in PLAIN_CALLABLES:
                return PLAIN_CALLABLES[func.name](*args)
            return getattr(self, TENSOR_REBUILDERS[func.name])(*args)
        if self.is_trusted(func):
            return func(*args)
        return super().call(func, args)

    def describe(self, obj) -> str:
        if isinstance(obj, (Allowed, dtypes.dtype)):
            return repr(obj)
        if self.is_trusted(obj):
            return f"{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', obj)}"
        return super().describe(obj)

    def new_object(self, cls, args: tuple):
        if isinstance(cls, TensorType) and cls.parameter:
            return self.rebuild_parameter(*args[:2])
        if self.is_trusted(cls) and isinstance(cls, type):
            return cls.__new__(cls, *args)
        return super().new_object(cls, args)

    def build(self, obj, state):
        if isinstance(obj, PendingNumpyDtype):  # state: (version, byte order, ...)
            if type(state) is not tuple or len(state) < 2 or state[1] not in ("<", ">", "|", "="):
                raise self.corrupt("a numpy.dtype's state has no byte order")
            return obj.np_dtype.newbyteorder(state[1]) if state[1] in "<>" else obj.np_dtype
        if type(obj) is OrderedDict and type(state) is dict:  # a state_dict's `_metadata`
            if not all(type(k) is str and not k.startswith("__") for k in state):
                raise self.refused("an OrderedDict's state may set only plain attribute names")
            obj.__dict__.update(state)
            return obj
        if self.is_trusted(type(obj)):
            return _set_state(obj, state)
        return super().build(obj, state)

    def persistent_load(self, pid):
        return self.records.storage(pid)

    def rebuild_tensor(
        self,
        storage,
        storage_offset,
        size,
        stride,
        requires_grad=False,
        backward_hooks=None,
        metadata=None,
    ):
        return self.records.tensor(storage, storage_offset, size, stride, requires_grad)

    def rebuild_parameter(self, data, requires_grad=True, backward_hooks=None, state=None):
        if not self.owns(data):
            raise self.corrupt(f"a Parameter's data is a {type(data).__name__}")
        return self.records.parameter(data, requires_grad)

    def rebuild_from_type(self, func, new_type, args, state):
        # `state` holds Python attributes set on the saved tensor; dyngrad does not restore them
        if not isinstance(func, AllowedCallable) or func.name not in TENSOR_FUNCTIONS:
            what = self.describe(func)
            raise self.refused(f"_rebuild_from_type_v2 of {what}, which does not make a tensor")
        if not isinstance(new_type, TensorType) or type(args) is not tuple:
            raise self.corrupt("_rebuild_from_type_v2 of something that is not a tensor type")
        tensor = self.made_here(self.call(func, args))
        return (
            self.rebuild_parameter(tensor, tensor.requires_grad) if new_type.parameter else tensor
        )


def _set_state(obj, state):
    """pickle's BUILD on an object of a class the user allowed."""
    setstate = getattr(obj, "__setstate__", None)
    if setstate is not None:
        setstate(state)
        return obj
    slots = None
    if type(state) is tuple and len(state) == 2:
        state, slots = state
    if state:
        obj.__dict__.update(state)
    for key, value in (slots or {}).items():
        setattr(obj, key, value)
    return obj


def load_weights_only(
    archive: zipfile.ZipFile, name: str, map_location, mapped=None, user_globals=None
):
    """The object a `torch.save` zip holds, rebuilt with dyngrad tensors; runs no code.

    `user_globals` maps names to the objects the user allowed (`allowed_globals()`).
    """
    data, prefix, byteorder = locate_pickle(archive, name)
    how = {"map_location": map_location, "byteorder": byteorder, "mapped": mapped}
    return _TorchUnpickler(data, archive, prefix, name, user_globals or {}, **how).load()
