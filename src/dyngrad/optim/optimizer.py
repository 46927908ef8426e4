"""`Optimizer`: parameter groups, per-parameter state, state_dict, zero_grad and step hooks."""

from __future__ import annotations

import copy
import functools
import warnings
from collections import OrderedDict, defaultdict
from itertools import chain

import numpy as np

from .._handles import RemovableHandle
from .._tensor import Tensor
from ..autograd import profiler
from ..graph.grad_mode import enable_grad
from ..graph.grad_mode import state as grad_state
from ..runtime.dtypes import float64, get_default_dtype

__all__ = ["Optimizer", "required"]


class _RequiredParameter:
    """Marks a default that every parameter group must give (PyTorch's `required`)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


# Note [Optimizer updates]
# Every optimizer writes its update straight into the parameter's array (and its state's
# arrays) with NumPy ufuncs, as PyTorch's single-tensor ("for-loop") implementations do with
# in-place tensor ops under no_grad: same operations, same order, same float32 rounding, so
# 20 steps stay within 1e-5 of PyTorch. No graph is built and each written tensor's version
# counter is bumped, so a saved tensor changed by `step()` is caught at backward.


class Optimizer:
    """Matches `torch.optim.Optimizer`: the base class of all optimizers."""

    def __init__(self, params, defaults: dict) -> None:
        self.defaults = defaults
        for name in _HOOK_STORES:
            setattr(self, name, OrderedDict())
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of "
                "Tensors or dicts, but got " + params.type()
            )
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list[dict] = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "step" in cls.__dict__:
            cls.step = _with_step_hooks(cls.__dict__["step"])

    def __getstate__(self) -> dict:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        for name in _HOOK_STORES:
            self.__dict__.setdefault(name, OrderedDict())
        # a checkpoint from an older PyTorch: its groups lack the options added since (each
        # PyTorch optimizer's __setstate__ sets them to their defaults) and its step counts
        # are Python numbers (before 1.12), which become the 0-d tensors steps now are
        for group in self.param_groups:
            for name, default in self.defaults.items():
                if default is not required:
                    group.setdefault(name, default)
        for value in self.state.values():
            if isinstance(value, dict) and isinstance(value.get("step"), (int, float)):
                value["step"] = step_counter(float(value["step"]))

    def __repr__(self) -> str:
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    # ---- parameter groups -----------------------------------------------------------------
    def add_param_group(self, param_group: dict) -> None:
        """Matches `torch.optim.Optimizer.add_param_group`."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list "
                "instead."
            )
        _split_names(param_group, list(params))
        self._check_params(param_group["params"])
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    "parameter group didn't specify a value of required "
                    f"optimization parameter {name}"
                )
            param_group.setdefault(name, default)
        self._check_new_group(param_group)
        self.param_groups.append(param_group)

    def _check_params(self, params: list) -> None:
        for param in params:
            if not isinstance(param, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    + _typename(param)
                )
            if not self.defaults.get("differentiable", None) and not (
                param.is_leaf or param.retains_grad
            ):
                raise ValueError("can't optimize a non-leaf Tensor")
        if len(params) != len(set(params)):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, "
                "this will cause an error; see github.com/pytorch/pytorch/issues/40967 for "
                "more information",
                stacklevel=4,
            )

    def _check_new_group(self, param_group: dict) -> None:
        seen: set = set()
        for group in self.param_groups:
            seen.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. "
                    f"cannot add param group {which} to the optimizer"
                )
        if not seen.isdisjoint(param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")

    # ---- gradients and steps --------------------------------------------------------------
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Matches `torch.optim.Optimizer.zero_grad`: drop (default) or zero every `.grad`."""
        if profiler.collector is not None:  # PyTorch's range: See Note [Profiler ranges]
            with profiler.record_function(f"Optimizer.zero_grad#{type(self).__name__}.zero_grad"):
                return self._zero_grads(set_to_none)
        return self._zero_grads(set_to_none)

    def _zero_grads(self, set_to_none: bool) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                grad = p._grad
                if grad is None:
                    continue
                if set_to_none:
                    p._grad = None
                    continue
                if grad._grad_fn is not None:
                    grad.detach_()
                else:
                    grad._requires_grad = False
                grad._data[...] = 0
                grad._version_counter.bump("zero_")

    def step(self, closure=None):
        """Performs a single optimization step; subclasses implement it."""
        raise NotImplementedError

    def register_step_pre_hook(self, hook) -> RemovableHandle:
        """Matches `torch.optim.Optimizer.register_step_pre_hook`: `hook(opt, args, kwargs)`."""
        return _add_hook(self._optimizer_step_pre_hooks, hook, prepend=False)

    def register_step_post_hook(self, hook) -> RemovableHandle:
        """Matches `torch.optim.Optimizer.register_step_post_hook`."""
        return _add_hook(self._optimizer_step_post_hooks, hook, prepend=False)

    def register_state_dict_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """Matches PyTorch's: `hook(optimizer)` before `state_dict()` builds its dict."""
        return _add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """Matches PyTorch's: `hook(optimizer, state_dict)`, which may return a new dict."""
        return _add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """Matches PyTorch's: `hook(optimizer, state_dict)` before loading, which may return
        the dict to load instead."""
        return _add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """Matches PyTorch's: `hook(optimizer)` after `load_state_dict()`."""
        return _add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ---- state_dict -----------------------------------------------------------------------
    def state_dict(self) -> dict:
        """Matches `torch.optim.Optimizer.state_dict`: parameters become their indices."""
        for pre_hook in list(self._optimizer_state_dict_pre_hooks.values()):
            pre_hook(self)
        result = self._state_dict()
        for post_hook in list(self._optimizer_state_dict_post_hooks.values()):
            changed = post_hook(self, result)
            if changed is not None:
                result = changed
        return result

    def _state_dict(self) -> dict:
        index: dict[int, int] = {}
        start = 0
        param_groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                index.setdefault(id(p), i)
            packed["params"] = [index[id(p)] for p in group["params"]]
            start += len(packed["params"])
            param_groups.append(packed)
        state = {(index[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return {"state": state, "param_groups": param_groups}

    def load_state_dict(self, state_dict: dict) -> None:
        """Matches `torch.optim.Optimizer.load_state_dict`."""
        state_dict = state_dict.copy()  # (a pre-hook may change it; the caller's is kept)
        for pre_hook in list(self._optimizer_load_state_dict_pre_hooks.values()):
            changed = pre_hook(self, state_dict)
            if changed is not None:
                state_dict = changed
        self._load_state_dict(state_dict)
        for post_hook in list(self._optimizer_load_state_dict_post_hooks.values()):
            post_hook(self)

    def _load_state_dict(self, state_dict: dict) -> None:
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match "
                "the size of optimizer's group"
            )
        id_map = dict(
            zip(
                chain.from_iterable(g["params"] for g in saved_groups),
                chain.from_iterable(g["params"] for g in groups),
            )
        )
        state: defaultdict = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in id_map:
                param = id_map[key]
                state[param] = _cast(param, value)
            else:
                state[key] = value
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
        self.__setstate__({"state": state, "param_groups": saved_groups})


# the hook stores, by PyTorch's attribute names
_HOOK_STORES = (
    "_optimizer_step_pre_hooks",
    "_optimizer_step_post_hooks",
    "_optimizer_state_dict_pre_hooks",
    "_optimizer_state_dict_post_hooks",
    "_optimizer_load_state_dict_pre_hooks",
    "_optimizer_load_state_dict_post_hooks",
)


def _add_hook(store: OrderedDict, hook, prepend: bool) -> RemovableHandle:
    handle = RemovableHandle(store)
    store[handle.id] = hook
    if prepend:
        store.move_to_end(handle.id, last=False)
    return handle


# `dyngrad.doctor` sets this to `observer(optimizer)`, called before every step while it watches.
step_observer = None


def _with_step_hooks(step):
    @functools.wraps(step)
    def hooked(self, *args, **kwargs):
        if profiler.collector is not None:  # PyTorch's range: See Note [Profiler ranges]
            with profiler.record_function(f"Optimizer.step#{type(self).__name__}.step"):
                return _hooked_step(step, self, args, kwargs)
        return _hooked_step(step, self, args, kwargs)

    return hooked


def _hooked_step(step, self, args, kwargs):
    if step_observer is not None:
        step_observer(self)
    for pre_hook in list(self._optimizer_step_pre_hooks.values()):
        result = pre_hook(self, args, kwargs)
        if result is not None:
            if not (isinstance(result, tuple) and len(result) == 2):
                raise RuntimeError(
                    f"{step} must return None or a tuple of (new_args, "
                    f"new_kwargs), but got {result}."
                )
            args, kwargs = result
    out = step(self, *args, **kwargs)
    for post_hook in list(self._optimizer_step_post_hooks.values()):
        post_hook(self, args, kwargs)
    return out


def _split_names(param_group: dict, params: list) -> None:
    # Params may come as (name, tensor) pairs, as from `model.named_parameters()`.
    names = [p[0] for p in params if isinstance(p, tuple)]
    param_group["params"] = [p[1] if isinstance(p, tuple) else p for p in params]
    if names:
        if len(names) != len(params):
            raise ValueError(
                "all optimizer params should be with/without names. Some param names are missing"
            )
        param_group["param_names"] = names


def _cast(param: Tensor, value, key=None):
    # State tensors follow the parameter's dtype, except the step counter.
    if isinstance(value, Tensor):
        if key != "step" and param.is_floating_point():
            return value.to(dtype=param.dtype)
        return value
    if isinstance(value, dict):
        return {k: _cast(param, v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(param, v) for v in value)
    return value


def _typename(obj) -> str:
    kind = type(obj)
    return (
        kind.__qualname__
        if kind.__module__ == "builtins"
        else f"{kind.__module__}.{kind.__qualname__}"
    )


# ---- shared by the optimizers ------------------------------------------------------------


def no_grad_step(step):
    """A built-in optimizer's `step` runs with grad mode off, as PyTorch's do (its closure
    turns grad back on for itself; an overriding subclass's own code is unaffected)."""

    @functools.wraps(step)
    def run(self, closure=None):
        prev = grad_state.enabled
        grad_state.enabled = False
        try:
            return step(self, closure)
        finally:
            grad_state.enabled = prev

    return run


def closure_loss(closure):
    """Run the optimizer's closure (with grad enabled, as PyTorch does) and return its loss."""
    if closure is None:
        return None
    with enable_grad():
        return closure()


def update_each(optimizer: Optimizer, closure):
    """The body of `step()` for the optimizers that update one parameter at a time."""
    loss = closure_loss(closure)
    for group in optimizer.param_groups:
        for p in group["params"]:
            if p._grad is not None:
                optimizer._update(p, group)
    return loss


def param_and_grad(p: Tensor, group: dict, weight_decay: bool = True) -> tuple:
    """`p` and its gradient as real arrays; negated to maximize, plus L2 `weight_decay`."""
    param = real_view(p._data)
    grad = real_view(-p._grad._data if group["maximize"] else p._grad._data)
    if weight_decay and group["weight_decay"] != 0:
        grad = grad + group["weight_decay"] * param
    return param, grad


def addcdiv_(param: np.ndarray, numerator: np.ndarray, denominator, value: float) -> None:
    """`param.addcdiv_(numerator, denominator, value=value)`, in PyTorch's order of operations."""
    update = numerator * value
    update /= denominator
    param += update


def step_counter(value: float = 0.0) -> Tensor:
    """The per-parameter `state['step']`: a 0-d tensor, float64 only under a float64 default."""
    dtype = np.float64 if get_default_dtype() is float64 else np.float32
    return Tensor._wrap(np.array(value, dtype=dtype))


def bump_state(state: dict) -> None:
    """Count an in-place write on each state tensor.

    The counters move as PyTorch's do, without the write site the parameters' own bump
    records: state tensors rarely meet autograd, and the site costs a stack walk per tensor.
    """
    for t in state.values():
        t._version_counter.value += 1


_INVALID = {"lr": "learning rate", "eps": "epsilon value"}


def check_nonnegative(**values) -> None:
    """PyTorch's "Invalid <name> value: <v>" checks, in the order given."""
    for name, value in values.items():
        if name == "lr" and isinstance(value, Tensor) and value.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= value:
            raise ValueError(f"Invalid {_INVALID.get(name, name + ' value')}: {value}")


def zeros_state(p: Tensor) -> Tensor:
    return Tensor._wrap(np.zeros_like(p._data))


def scalar(value) -> float:
    """A hyper-parameter as a Python number (PyTorch accepts 1-element tensors for lr)."""
    return value.item() if isinstance(value, Tensor) else value


def real_view(array: np.ndarray) -> np.ndarray:
    """A complex array seen as pairs of reals, as PyTorch's `view_as_real` in its updates."""
    return array.view(array.real.dtype) if array.dtype.kind == "c" else array


def check_unsupported(
    name: str, *, foreach=None, fused=None, differentiable=False, capturable=False
) -> None:
    """PyTorch's checks on the implementation keywords, and dyngrad's limits on them.

    `foreach=True` and `fused=True` only choose PyTorch kernels; dyngrad runs its one loop and
    gives the same update. `differentiable` and `capturable` change what a step is: refused.
    """
    if fused and differentiable:
        raise RuntimeError("`fused` does not support `differentiable`")
    if fused and foreach:
        raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
    for flag, value in (("differentiable", differentiable), ("capturable", capturable)):
        if value:
            raise NotImplementedError(
                f"dyngrad does not implement {name}({flag}=True): its optimizers update "
                f"parameters in place outside the graph. Use {flag}=False."
            )
