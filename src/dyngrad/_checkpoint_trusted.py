"""torch.save checkpoints read with `weights_only=False`: pickle itself, for files one trusts."""

from __future__ import annotations

import io
import pickle
from typing import TYPE_CHECKING

from ._checkpoint_names import (
    ALLOWED_VALUES,
    TENSOR_REBUILDERS,
    StorageType,
    dyngrad_object,
    qualified_name,
)
from ._checkpoint_records import Records, locate_pickle
from .nn.parameter import Parameter
from .runtime import dtypes

if TYPE_CHECKING:  # zipfile (and the pathlib it loads) is imported by load and save
    import zipfile

__all__ = ["load_trusted"]

# Note [Trusted loads]
# `load(f, weights_only=False)` unpickles as `torch.load` does then: with the pickle module's
# own Unpickler, which imports and calls whatever the file names (so only for files one
# trusts). What differs is where names lead: torch's tensor rebuilders and storage types to
# this load's Records (Note [Reading torch.save files]), and any other `torch.*` name to
# dyngrad's object of that name (see `dyngrad_object`), so a model torch saved whole loads as
# dyngrad modules. A torch name dyngrad lacks is an error that names it.


class _Errors:
    """The errors Records raise on this path: no `weights_only` to blame."""

    def __init__(self, name: str) -> None:
        self.name = name

    def refused(self, what: str) -> pickle.UnpicklingError:
        return pickle.UnpicklingError(f"{self.name}: {what}")

    def corrupt(self, what: str) -> pickle.UnpicklingError:
        return pickle.UnpicklingError(f"{self.name} is corrupt: {what}")

    def describe(self, obj) -> str:
        return type(obj).__name__


class _Rebuilders:
    """torch._utils' rebuild functions, over one load's Records."""

    def __init__(self, records: Records) -> None:
        self.records = records

    def rebuild_tensor(self, storage, storage_offset, size, stride, requires_grad=False, *rest):
        return self.records.tensor(storage, storage_offset, size, stride, requires_grad)

    def rebuild_parameter(self, data, requires_grad=True, *rest):
        return self.records.parameter(data, requires_grad)

    def rebuild_from_type(self, func, new_type, args, state):
        tensor = func(*args)
        if isinstance(new_type, type) and issubclass(new_type, Parameter):
            return self.records.parameter(tensor, tensor.requires_grad)
        return tensor


def load_trusted(
    archive: zipfile.ZipFile,
    name: str,
    map_location,
    mapped=None,
    pickle_module=None,
    **pickle_load_args,
):
    """The object a `torch.save` zip holds, unpickled by `pickle_module` (trusting the file)."""
    data, prefix, byteorder = locate_pickle(archive, name)
    how = {"map_location": map_location, "byteorder": byteorder, "mapped": mapped}
    records = Records(archive, prefix, _Errors(name), **how)
    rebuilders = _Rebuilders(records)
    base = (pickle_module or pickle).Unpickler

    class Unpickler(base):
        def find_class(self, module: str, global_name: str):
            key = qualified_name(module, global_name)
            if key in TENSOR_REBUILDERS:
                return getattr(rebuilders, TENSOR_REBUILDERS[key])
            value = ALLOWED_VALUES.get(key)
            if isinstance(value, (StorageType, dtypes.dtype)):
                return value
            found = dyngrad_object(module, global_name)
            if found is not None:
                return found
            if module == "torch" or module.startswith("torch."):
                raise pickle.UnpicklingError(
                    f"{name} needs `{key}`, which dyngrad does not have: load it with PyTorch, "
                    "or save a state_dict there and load that"
                )
            return super().find_class(module, global_name)

        def persistent_load(self, pid):
            return records.storage(pid)

    return Unpickler(io.BytesIO(data), **pickle_load_args).load()
