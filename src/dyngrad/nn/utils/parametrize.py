"""`torch.nn.utils.parametrize`: a parameter or buffer seen through modules that compute it.

# Note [Parametrized modules]
# `register_parametrization(m, "weight", p)` moves `m.weight` into a `ParametrizationList` at
# `m.parametrizations.weight` (stored as `.original`, or `.original0`, `.original1`, ... when
# `p.right_inverse` returns a sequence) and swaps `m`'s class for a generated subclass,
# `Parametrized<Name>`, holding a property `weight`: reading it runs the list's modules on the
# originals; assigning to it runs their `right_inverse`s backwards and writes the result into
# the originals (`set_`, so a Parameter keeps its identity and an optimizer keeps tracking it).
# The class is per module, so the property touches no other instance. Module needs nothing
# special: `weight` is no longer in `_parameters`, so attribute lookup finds the property
# before `Module.__getattr__`, and `Module.__setattr__` hands a plain tensor to the property's
# setter (a Parameter still raises "attribute 'weight' already exists", as in PyTorch).
# State dict keys follow from the layout: `parametrizations.weight.original`.
"""

from __future__ import annotations

import collections.abc
from contextlib import contextmanager
from copy import deepcopy

from ..._tensor import Tensor
from ...graph.grad_mode import no_grad
from ..modules.container import ModuleList
from ..modules.container_dict import ModuleDict
from ..modules.module import Module
from ..parameter import Parameter

__all__ = [
    "cached",
    "ParametrizationList",
    "register_parametrization",
    "is_parametrized",
    "remove_parametrizations",
    "type_before_parametrizations",
    "transfer_parametrizations_and_params",
]

_cache_enabled = 0
_cache: dict = {}


@contextmanager
def cached():
    """Matches `torch.nn.utils.parametrize.cached`: inside it, each parametrized tensor is
    computed once (on first use) and reused until the outermost `cached()` exits."""
    global _cache, _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module: Module, name: str, value) -> None:
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _set_into(dest: Tensor, src: Tensor) -> None:
    # `dest` takes `src`'s memory and keeps its identity (optimizers hold `dest`)
    with no_grad():
        dest.set_(src)


def _right_inverse_at_registration(modules, original):
    # a parametrization without right_inverse, or whose right_inverse raises
    # NotImplementedError, is taken to have the identity as right inverse
    new = original
    with no_grad():
        for module in reversed(modules):
            if hasattr(module, "right_inverse"):
                try:
                    new = module.right_inverse(new)
                except NotImplementedError:
                    pass
    if not isinstance(new, (Tensor, collections.abc.Sequence)):
        raise ValueError(
            "'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
            f"Got {type(new).__name__}"
        )
    return new


class ParametrizationList(ModuleList):
    """Matches `torch.nn.utils.parametrize.ParametrizationList`: the parametrizations of one
    tensor, in order, and its unparametrized value(s) (`original`, or `original0`, ...)."""

    original: Tensor
    unsafe: bool

    def __init__(self, modules, original: Tensor, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        new = _right_inverse_at_registration(self, original)
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            self._register_single(original, new)
        else:
            self._register_sequence(original, new)
        if not unsafe:
            self._check_forward(original)

    def _register_single(self, original: Tensor, new: Tensor) -> None:
        if original.dtype != new.dtype:
            raise ValueError(
                "When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                f"original.dtype: {original.dtype}\n"
                f"right_inverse(original).dtype: {new.dtype}"
            )
        if original.device != new.device:
            raise ValueError(
                "When `right_inverse` outputs one tensor, it may not change the device.\n"
                f"original.device: {original.device}\n"
                f"right_inverse(original).device: {new.device}"
            )
        _set_into(original, new)
        _register_parameter_or_buffer(self, "original", original)

    def _register_sequence(self, original: Tensor, new) -> None:
        # the new tensors are new leaves: the user adds them to the optimizer (as documented)
        for i, value in enumerate(new):
            if not isinstance(value, Tensor):
                raise ValueError(
                    "'right_inverse' must return a Tensor or a Sequence of tensors "
                    "(list, tuple...). "
                    f"Got element {i} of the sequence with type {type(value).__name__}."
                )
            if isinstance(original, Parameter):
                value = Parameter(value, original.requires_grad)
            value.requires_grad_(original.requires_grad)
            _register_parameter_or_buffer(self, f"original{i}", value)

    def _check_forward(self, original: Tensor) -> None:
        # forward(right_inverse(original)) must live where original does
        value = self()
        if not isinstance(value, Tensor):
            raise ValueError(f"A parametrization must return a tensor. Got {type(value).__name__}.")
        _check_same_space(
            "Registering a parametrization may not change the {what} of the tensor, unless "
            "`unsafe` flag is enabled.\nunparametrized {what}: {old}\nparametrized {what}: {new}",
            original,
            value,
        )

    def right_inverse(self, value: Tensor) -> None:
        """Matches `ParametrizationList.right_inverse`: what assigning to the parametrized
        tensor does; each `right_inverse` in reverse order, then written into the originals."""
        with no_grad():
            for module in reversed(self):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(
                        f"parametrization {type(module).__name__} does not implement right_inverse."
                    )
                value = module.right_inverse(value)
            if self.is_tensor:
                self._assign_single(value)
            else:
                self._assign_sequence(value)

    def _assign_single(self, value) -> None:
        if not isinstance(value, Tensor):
            raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
        if value.dtype != self.original.dtype:
            raise ValueError(
                f"The tensor returned by `right_inverse` has dtype {value.dtype} "
                f"while `original` has dtype {self.original.dtype}"
            )
        _set_into(self.original, value)

    def _assign_sequence(self, values) -> None:
        if not isinstance(values, collections.abc.Sequence):
            raise ValueError(
                f"'right_inverse' must return a sequence of tensors. Got {type(values).__name__}."
            )
        if len(values) != self.ntensors:
            raise ValueError(
                "'right_inverse' must return a sequence of tensors of length "
                f"{self.ntensors}. Got a sequence of length {len(values)}."
            )
        for i, value in enumerate(values):
            original = getattr(self, f"original{i}")
            if not isinstance(value, Tensor):
                raise ValueError(
                    "'right_inverse' must return a sequence of tensors or reference-type "
                    f"opaques. Got element {i} of type {type(value).__name__}."
                )
            if original.dtype != value.dtype:
                raise ValueError(
                    f"Tensor {i} returned by `right_inverse` has dtype {value.dtype} "
                    f"while `original{i}` has dtype {original.dtype}"
                )
            _set_into(original, value)

    def forward(self) -> Tensor:
        modules = iter(self)
        first = next(modules)
        if self.is_tensor:
            x = first(self.original)
        else:
            x = first(*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in modules:
            x = module(x)
        return x


def _refuse_pickling(self):
    raise RuntimeError(
        "Serialization of parametrized modules is only supported through state_dict(). See:\n"
        "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
        "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training"
    )


def _deepcopy_dict(self, memo):
    # deepcopy would otherwise go through __getstate__, which refuses
    copied = memo.get(id(self))
    if copied is not None:
        return copied
    replica = type(self).__new__(type(self))
    memo[id(self)] = replica
    replica.__dict__ = deepcopy(self.__dict__, memo)
    return replica


def _inject_new_class(module: Module) -> None:
    cls = type(module)
    members = {"__getstate__": _refuse_pickling}
    if not hasattr(cls, "__deepcopy__"):
        members["__deepcopy__"] = _deepcopy_dict
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), members)


def _inject_property(module: Module, tensor_name: str) -> None:
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_parametrized(self) -> Tensor:
        parametrization = self.parametrizations[tensor_name]
        if not _cache_enabled:
            return parametrization()
        key = (id(self), tensor_name)
        tensor = _cache.get(key)
        if tensor is None:
            tensor = _cache[key] = parametrization()
        return tensor

    def set_original(self, value: Tensor) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(type(module), tensor_name, property(get_parametrized, set_original))


def _check_appended(module: Module, tensor_name: str, parametrization: Module) -> None:
    # parametrization and its right_inverse must map module.<tensor_name>'s space to itself
    current = getattr(module, tensor_name)
    value = parametrization(current)
    if not isinstance(value, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(value).__name__}.")
    _check_same_space(
        "Registering a parametrization may not change the {what} of the tensor, unless the "
        "`unsafe` flag is enabled.\n"
        f"module.{tensor_name}.{{what}}: {{old}}\n"
        f"parametrization(module.{tensor_name}).{{what}}: {{new}}",
        current,
        value,
    )
    if not hasattr(parametrization, "right_inverse"):
        return
    try:
        inverse = parametrization.right_inverse(value)
    except NotImplementedError:
        return
    if not isinstance(inverse, Tensor):
        raise ValueError(
            f"parametrization.right_inverse must return a tensor. Got: {type(inverse).__name__}"
        )
    _check_same_space(
        "The tensor returned by parametrization.right_inverse must have the same {what} "
        f"as module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
        f"module.{tensor_name}.{{what}}: {{old}}\n"
        "returned {what}: {new}",
        current,
        inverse,
    )


def _check_same_space(template: str, old: Tensor, new: Tensor) -> None:
    for what in ("dtype", "shape"):
        if getattr(old, what) != getattr(new, what):
            raise ValueError(
                template.format(what=what, old=getattr(old, what), new=getattr(new, what))
            )


def register_parametrization(
    module: Module, tensor_name: str, parametrization: Module, *, unsafe: bool = False
) -> Module:
    """Matches `torch.nn.utils.parametrize.register_parametrization`: `module.<tensor_name>`
    becomes `parametrization(original)`; a second call chains another parametrization.
    See Note [Parametrized modules]."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            _check_appended(module, tensor_name, parametrization)
        chain = module.parametrizations[tensor_name]
        chain.append(parametrization)
        chain.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        chain = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = chain
    else:
        raise ValueError(
            f"Module '{module}' does not have a parameter, a buffer, or a "
            f"parametrized element with name '{tensor_name}'"
        )
    return module


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Matches `torch.nn.utils.parametrize.is_parametrized`."""
    parametrizations = getattr(module, "parametrizations", None)
    if not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(
    module: Module, tensor_name: str, leave_parametrized: bool = True
) -> Module:
    """Matches `torch.nn.utils.parametrize.remove_parametrizations`: `module.<tensor_name>`
    a plain parameter (or buffer) again, holding the parametrized value
    (`leave_parametrized=True`, in the original's memory) or the original."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    chain = module.parametrizations[tensor_name]
    if chain.is_tensor:
        original = chain.original
        if leave_parametrized:
            with no_grad():
                value = getattr(module, tensor_name)
            _set_into(original, value)
    elif leave_parametrized:
        # grad mode stays on: whether the value requires grad says Parameter or buffer
        value = getattr(module, tensor_name)
        original = Parameter(value) if value.requires_grad else value
    else:
        raise ValueError(
            "Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
            "that is parametrized in terms of a sequence of tensors."
        )
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = type(module).__bases__[0]
    return module


def type_before_parametrizations(module: Module) -> type:
    """Matches `torch.nn.utils.parametrize.type_before_parametrizations`: the class the module
    had before its first parametrization."""
    if is_parametrized(module):
        return type(module).__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(
    from_module: Module, to_module: Module, tensor_name: str | None = None
) -> Module:
    """Matches `torch.nn.utils.parametrize.transfer_parametrizations_and_params`: register on
    `to_module` the same parametrization objects and share the same originals."""
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        source = from_module.parametrizations[name]
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        for parametrization in source:
            register_parametrization(to_module, name, parametrization)
        target = to_module.parametrizations[name]
        if hasattr(source, "original"):
            target.original = source.original
            continue
        i = 0
        while hasattr(source, f"original{i}"):
            setattr(target, f"original{i}", getattr(source, f"original{i}"))
            i += 1
    return to_module
