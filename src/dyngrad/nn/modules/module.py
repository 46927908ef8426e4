"""`Module`: parameters, buffers and submodules registered by assignment; the hooked call."""

from __future__ import annotations

from collections import OrderedDict

from ..._handles import RemovableHandle
from ..._tensor import Tensor
from ..._typename import typename
from ...autograd import scope
from ..parameter import Buffer, Parameter
from . import hooks, stores
from .conversion import ConversionMixin
from .hooks import (  # noqa: F401 - PyTorch exposes these in torch.nn.modules.module
    register_module_forward_hook,
    register_module_forward_pre_hook,
    register_module_full_backward_hook,
    register_module_full_backward_pre_hook,
)
from .state_dict import StateDictMixin
from .stores import Store

__all__ = ["Module", "typename"]  # typename: PyTorch has it here too


def _addindent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "".join("\n" + " " * spaces + line for line in lines[1:])


class Module(StateDictMixin, ConversionMixin):
    """Matches `torch.nn.Module`: the base of every layer and model."""

    training: bool
    _version: int = 1
    call_super_init: bool = False
    dump_patches: bool = False

    def __init__(self, *args, **kwargs):
        if kwargs:
            raise TypeError(
                f"{type(self).__name__}.__init__() got an unexpected keyword "
                f"argument '{next(iter(kwargs))}'"
            )
        if args:
            raise TypeError(
                f"{type(self).__name__}.__init__() takes 1 positional argument "
                f"but {len(args) + 1} were given"
            )
        setattr_ = object.__setattr__
        setattr_(self, "training", True)
        for name in (
            "_parameters",
            "_buffers",
            "_modules",
            "_forward_hooks",
            "_forward_hooks_with_kwargs",
            "_forward_hooks_always_called",
            "_forward_pre_hooks",
            "_forward_pre_hooks_with_kwargs",
            "_backward_hooks",
            "_backward_pre_hooks",
            "_state_dict_hooks",
            "_state_dict_pre_hooks",
            "_load_state_dict_pre_hooks",
            "_load_state_dict_post_hooks",
        ):
            setattr_(self, name, Store())
        setattr_(self, "_non_persistent_buffers_set", set())

    def forward(self, *input):
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    # ---- calling -------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        # See Note [Module scope]: errors inside name this module; graph views group by it
        scope.enter(self)
        try:
            if not (
                self._forward_hooks
                or self._forward_pre_hooks
                or self._backward_hooks
                or self._backward_pre_hooks
                or hooks.ANY_GLOBAL
            ):
                return self.forward(*args, **kwargs)
            return hooks.call_with_hooks(self, args, kwargs)
        except Exception as exc:
            scope.annotate(exc, args)
            raise
        finally:
            scope.exit()

    _call_impl = __call__

    # ---- registration --------------------------------------------------------------------------
    def __setattr__(self, name: str, value) -> None:
        stores.changed()  # See Note [Module state epoch]
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name, "_parameters")
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            if self.__dict__.get("_modules") is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name, "_modules")
            self._modules[name] = value
        elif name in self.__dict__.get("_modules", ()):
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as child module '{name}' "
                    "(torch.nn.Module or None expected)"
                )
            self._modules[name] = value
        elif isinstance(value, Buffer):
            if self.__dict__.get("_buffers") is None:
                raise AttributeError("cannot assign buffer before Module.__init__() call")
            self._forget(name, "_buffers")
            self.register_buffer(name, value, value.__dict__["_buffer_persistent"])
        elif name in self.__dict__.get("_buffers", ()):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{typename(value)}' as buffer '{name}' "
                    "(torch.nn.Buffer, torch.Tensor or None expected)"
                )
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name: str, keep: str) -> None:
        # drop `name` from every other store; in `keep` it is overwritten in place (order kept)
        self.__dict__.pop(name, None)
        for store in ("_parameters", "_buffers", "_modules"):
            if store != keep:
                self.__dict__[store].pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    def __getattr__(self, name: str):
        # reached only when normal lookup fails: parameters first, the common case in forward
        d = self.__dict__
        if "_parameters" in d:
            if name in d["_parameters"]:
                return d["_parameters"][name]
            if name in d["_buffers"]:
                return d["_buffers"][name]
            if name in d["_modules"]:
                return d["_modules"][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        stores.changed()  # See Note [Module state epoch]
        for store in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__[store]:
                del self.__dict__[store][name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        keys = (
            dir(type(self))
            + list(self.__dict__)
            + list(self._parameters)
            + list(self._modules)
            + list(self._buffers)
        )
        return sorted(k for k in keys if not k[0].isdigit())

    def _check_name(self, kind: str, name, store: str) -> None:
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError(
                f'{kind} name can\'t contain "."' + (f", got: {name}" if kind == "module" else "")
            )
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in self.__dict__[store]:
            raise KeyError(f"attribute '{name}' already exists")

    def register_buffer(self, name: str, tensor, persistent: bool = True) -> None:
        """Matches `torch.nn.Module.register_buffer`."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_name("buffer", name, "_buffers")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                "(torch Tensor or None required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param) -> None:
        """Matches `torch.nn.Module.register_parameter`."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_name("parameter", name, "_parameters")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{typename(param)}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        if param is not None and param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must "
                f"be created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method."
            )
        self._parameters[name] = param

    def add_module(self, name: str, module) -> None:
        """Matches `torch.nn.Module.add_module`."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{typename(module)} is not a Module subclass")
        self._check_name("module", name, "_modules")
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target: str) -> Module:
        """Matches `torch.nn.Module.get_submodule`: `"net.0"` style dotted paths."""
        module = self
        if target == "":
            return module
        for item in target.split("."):
            if not hasattr(module, item):
                raise AttributeError(f"{module._get_name()} has no attribute `{item}`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return module

    def _get_member(self, target: str, check, what: str):
        path, _, name = target.rpartition(".")
        module = self.get_submodule(path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        value = getattr(module, name)
        if not check(module, name, value):
            raise AttributeError(f"`{name}` is not {what}")
        return value

    def get_parameter(self, target: str) -> Parameter:
        return self._get_member(target, lambda m, n, v: isinstance(v, Parameter), "an nn.Parameter")

    def get_buffer(self, target: str) -> Tensor:
        return self._get_member(target, lambda m, n, v: n in m._buffers, "a buffer")

    # ---- traversal -----------------------------------------------------------------------------
    def _named_members(self, members, prefix="", recurse=True, remove_duplicate=True):
        seen = set()
        modules = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse
            else [(prefix, self)]
        )
        for module_prefix, module in modules:
            for name, value in members(module):
                if value is None or id(value) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield (module_prefix + "." + name if module_prefix else name), value

    def parameters(self, recurse: bool = True):
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ):
        return self._named_members(
            lambda m: m._parameters.items(), prefix, recurse, remove_duplicate
        )

    def buffers(self, recurse: bool = True):
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def children(self):
        for _, module in self.named_children():
            yield module

    def named_children(self):
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def named_modules(
        self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True
    ):
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(
                    memo, prefix + "." + name if prefix else name, remove_duplicate
                )

    # ---- hooks ---------------------------------------------------------------------------------
    def register_forward_pre_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False):
        """Matches `torch.nn.Module.register_forward_pre_hook`: `hook(module, args)`."""
        extra = {"_forward_pre_hooks_with_kwargs": with_kwargs}
        return hooks.add(self, "_forward_pre_hooks", hook, prepend, extra)

    def register_forward_hook(
        self, hook, *, prepend: bool = False, with_kwargs: bool = False, always_call: bool = False
    ):
        """Matches `torch.nn.Module.register_forward_hook`: `hook(module, args, output)`."""
        extra = {
            "_forward_hooks_with_kwargs": with_kwargs,
            "_forward_hooks_always_called": always_call,
        }
        return hooks.add(self, "_forward_hooks", hook, prepend, extra)

    def register_full_backward_pre_hook(self, hook, prepend: bool = False):
        """Matches `torch.nn.Module.register_full_backward_pre_hook`: `hook(module, grad_out)`."""
        return hooks.add(self, "_backward_pre_hooks", hook, prepend, {})

    def register_full_backward_hook(self, hook, prepend: bool = False):
        """Matches `torch.nn.Module.register_full_backward_hook`."""
        return hooks.add(self, "_backward_hooks", hook, prepend, {})

    def _register_load_state_dict_pre_hook(self, hook, with_module: bool = False):
        """PyTorch's private form, which libraries call: `hook(state_dict, prefix, ...)`, the
        module first only `with_module`; kept as given, so its remover can find it by type."""
        if with_module:
            return self.register_load_state_dict_pre_hook(hook)
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = hook
        return handle

    def register_backward_hook(self, hook):
        raise NotImplementedError(
            "dyngrad does not implement torch.nn.Module.register_backward_hook (deprecated in "
            "PyTorch); use register_full_backward_hook"
        )

    # ---- printing ------------------------------------------------------------------------------
    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [
            f"({key}): " + _addindent(repr(module), 2) for key, module in self._modules.items()
        ]
        lines = extra_lines + child_lines
        if not lines:
            return self._get_name() + "()"
        if len(extra_lines) == 1 and not child_lines:
            return f"{self._get_name()}({extra_lines[0]})"
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def __setstate__(self, state) -> None:
        stores.changed()
        self.__dict__.update(state)
        for name in (
            "_forward_hooks_with_kwargs",
            "_forward_hooks_always_called",
            "_forward_pre_hooks_with_kwargs",
            "_state_dict_pre_hooks",
            "_load_state_dict_post_hooks",
        ):
            self.__dict__.setdefault(name, OrderedDict())
        for name, value in self.__dict__.items():  # stores pickle as OrderedDicts
            if type(value) is OrderedDict:
                self.__dict__[name] = Store(value)
        self.__dict__.setdefault("_non_persistent_buffers_set", set())
