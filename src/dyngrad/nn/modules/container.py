"""List-like containers: `Sequential`, `ModuleList`, `ParameterList`; the deprecated
`Container`."""

from __future__ import annotations

import operator
import warnings
from collections import OrderedDict
from collections.abc import Iterable
from itertools import islice

from ..._tensor import Tensor
from ..parameter import Parameter
from .module import Module, _addindent

__all__ = ["Container", "Sequential", "ModuleList", "ParameterList"]


def _abs_index(idx, size: int) -> int:
    idx = operator.index(idx)
    if not -size <= idx < size:
        raise IndexError(f"index {idx} is out of range")
    return idx % size if size else idx


def _renumber(module: Module) -> None:
    # keys stay "0".."n-1" after a deletion, as PyTorch keeps them
    module._modules = OrderedDict((str(i), m) for i, m in enumerate(module._modules.values()))


class Container(Module):
    """Matches `torch.nn.Container` (deprecated): submodules given as keyword arguments."""

    def __init__(self, **kwargs):
        warnings.warn(
            "`nn.Container` is deprecated. All of its functionality is now implemented in "
            "`nn.Module`. Subclass that instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__()
        for key, value in kwargs.items():
            self.add_module(key, value)


class _ModuleSequence(Module):
    """Sequential and ModuleList: modules registered under the keys "0".."n-1"."""

    def __delitem__(self, idx) -> None:
        keys = list(self._modules.keys())
        for key in keys[idx] if isinstance(idx, slice) else [keys[_abs_index(idx, len(self))]]:
            delattr(self, key)
        _renumber(self)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __dir__(self):
        return [k for k in super().__dir__() if not k.isdigit()]

    def pop(self, key):
        value = self[key]
        del self[key]
        return value


class Sequential(_ModuleSequence):
    """Matches `torch.nn.Sequential`: modules called in order, each on the previous output."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        return next(islice(self._modules.values(), _abs_index(idx, len(self)), None))

    def __setitem__(self, idx, module) -> None:
        key = next(islice(self._modules.keys(), _abs_index(idx, len(self)), None))
        setattr(self, key, module)

    def __add__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError(
                "add operator supports only objects of Sequential class, but "
                f"{type(other)} is given."
            )
        return Sequential(*list(self), *list(other))

    def __iadd__(self, other):
        return self.extend(other)

    def __mul__(self, other: int):
        if not isinstance(other, int) or other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for Sequential")
        return Sequential(*(list(self) * other))

    __rmul__ = __mul__

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        index = index + n if index < 0 else index
        modules = list(self._modules.values())
        modules.insert(index, module)
        self._modules = OrderedDict()
        for i, m in enumerate(modules):
            self.add_module(str(i), m)
        return self

    def extend(self, sequential) -> Sequential:
        for layer in sequential:
            self.append(layer)
        return self

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input


class ModuleList(_ModuleSequence):
    """Matches `torch.nn.ModuleList`: a list whose modules are registered."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[str(_abs_index(idx, len(self)))]

    def __setitem__(self, idx, module) -> None:
        setattr(self, str(_abs_index(idx, len(self))), module)

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        combined = ModuleList()
        for i, module in enumerate(list(self) + list(other)):
            combined.add_module(str(i), module)
        return combined

    def __repr__(self) -> str:
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        blocks: list = []  # [start, end, repr]: runs of equal modules print once, "(0-2): 3 x"
        for i, r in enumerate(reprs):
            if blocks and blocks[-1][2] == r:
                blocks[-1][1] = i
            else:
                blocks.append([i, i, r])
        lines = [
            _addindent(f"({s}): {r}" if s == e else f"({s}-{e}): {e - s + 1} x {r}", 2)
            for s, e, r in blocks
        ]
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def insert(self, index: int, module: Module) -> None:
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules) -> ModuleList:
        if not isinstance(modules, Iterable):
            raise TypeError(
                "ModuleList.extend should be called with an iterable, but got "
                + type(modules).__name__
            )
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self


def _parameter_line(key, p, type_name) -> str:
    if not isinstance(p, Tensor):
        return f"  ({key}): Object of type: {type(p).__name__}"
    size = "x".join(str(s) for s in p.shape)
    device = f" ({p.device})" if p.device.type == "cuda" else ""
    kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
    return f"  ({key}): {kind} containing: [{type_name(p)} of size {size}{device}]"


class ParameterList(Module):
    """Matches `torch.nn.ParameterList`: plain tensors put in it become Parameters."""

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)([self[i] for i in range(len(self))[idx]])
        return getattr(self, str(_abs_index(idx, len(self))))

    def __setitem__(self, idx, param) -> None:
        idx = _abs_index(idx, len(self))
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, str(idx), param)

    def __len__(self) -> int:
        return self._size

    def __iter__(self):
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def __dir__(self):
        return [k for k in super().__dir__() if not k.isdigit()]

    def append(self, value) -> ParameterList:
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values) -> ParameterList:
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError(
                "ParameterList.extend should be called with an iterable, but got "
                + type(values).__name__
            )
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return "\n".join(_parameter_line(k, p, lambda t: str(t.dtype)) for k, p in enumerate(self))
