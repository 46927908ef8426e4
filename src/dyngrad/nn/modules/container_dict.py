"""Dict-like containers: `ModuleDict` and `ParameterDict`."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping

from ..._tensor import Tensor
from ..parameter import Parameter
from .container import _parameter_line
from .module import Module, typename

__all__ = ["ModuleDict", "ParameterDict"]


def _pairs(values, owner: str, sort_plain_dicts: bool):
    if isinstance(values, (OrderedDict, ModuleDict, ParameterDict)):
        return list(values.items())
    if isinstance(values, Mapping):
        return sorted(values.items()) if sort_plain_dicts else list(values.items())
    if not isinstance(values, Iterable):
        raise TypeError(
            f"{owner}.update should be called with an iterable of key/value "
            f"pairs, but got {type(values).__name__}"
        )
    pairs = []
    for j, item in enumerate(values):
        if not isinstance(item, Iterable):
            raise TypeError(
                f"{owner} update sequence element #{j} should be Iterable; is" + type(item).__name__
            )
        item = list(item)
        if len(item) != 2:
            raise ValueError(
                f"{owner} update sequence element #{j} has length {len(item)}; 2 is required"
            )
        pairs.append(tuple(item))
    return pairs


class ModuleDict(Module):
    """Matches `torch.nn.ModuleDict`: an ordered dict whose modules are registered."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key) -> bool:
        return key in self._modules

    def clear(self) -> None:
        self._modules.clear()

    def pop(self, key: str) -> Module:
        value = self[key]
        del self[key]
        return value

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules) -> None:
        for key, module in _pairs(modules, "ModuleDict", False):
            self[key] = module


class ParameterDict(Module):
    """Matches `torch.nn.ParameterDict`: plain tensors put in it become Parameters."""

    def __init__(self, parameters=None):
        super().__init__()
        self._keys: dict = {}
        if parameters is not None:
            self.update(parameters)

    def _key_to_attr(self, key) -> str:
        if not isinstance(key, str):
            raise TypeError(
                "Index given to ParameterDict cannot be used as a key as it is not "
                f"a string (type is '{type(key).__name__}'). Open an issue on "
                "github if you need non-string keys."
            )
        return key

    def __getitem__(self, key):
        return getattr(self, self._key_to_attr(key))

    def __setitem__(self, key, value) -> None:
        self._keys[key] = None
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, self._key_to_attr(key), value)

    def __delitem__(self, key) -> None:
        del self._keys[key]
        delattr(self, self._key_to_attr(key))

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(list(self._keys))

    def __contains__(self, key) -> bool:
        return key in self._keys

    def copy(self) -> ParameterDict:
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        for k in list(self._keys):
            del self[k]

    def pop(self, key):
        value = self[key]
        del self[key]
        return value

    def popitem(self):
        key = list(self._keys)[-1]
        return key, self.pop(key)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def update(self, parameters) -> None:
        for key, value in _pairs(parameters, "ParametersDict", True):
            self[key] = value

    def extra_repr(self) -> str:
        return "\n".join(_parameter_line(k, p, typename) for k, p in self.items())
