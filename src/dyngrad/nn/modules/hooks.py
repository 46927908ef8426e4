"""Module hooks: registration, the hooked call, and full backward hooks around a module.

# Note [Full backward hooks]
# A module's inputs and outputs pass through an identity autograd Function
# (`BackwardHookFunction`) when backward hooks are registered. Backward reaches the output
# identity first: its gradients are the module's grad_output (backward pre-hooks may replace
# them). It reaches the input identity last: its gradients are the grad_input the full hooks
# see and may replace. No input needing grad means the hooks fire at the output, with
# grad_input all None, as PyTorch does.
# The output identity hands the input identity its grad_output, which the input identity
# consumes: a gradient reaching the inputs without passing through the outputs in the same
# pass (a double backward through what the module saved, e.g. `autograd.grad(gx, x)` after
# `gx = autograd.grad(loss(x), x, create_graph=True)`) fires no hook, as in PyTorch.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict

from ..._handles import RemovableHandle
from ..._tensor import Tensor
from ...autograd.function import Function
from ...graph.grad_mode import state as grad_state

__all__ = [
    "register_module_forward_pre_hook",
    "register_module_forward_hook",
    "register_module_full_backward_pre_hook",
    "register_module_full_backward_hook",
]

_global_forward_pre_hooks: dict = OrderedDict()
_global_forward_hooks: dict = OrderedDict()
_global_forward_hooks_always_called: dict = OrderedDict()
_global_backward_pre_hooks: dict = OrderedDict()
_global_backward_hooks: dict = OrderedDict()


# every global hook, whatever its kind: one truth test on the hot path of Module.__call__
ANY_GLOBAL: dict = {}


def _insert(store: dict, key, hook, prepend: bool) -> None:
    if not prepend:
        store[key] = hook
        return
    rest = list(store.items())
    store.clear()
    store[key] = hook
    store.update(rest)


def add(module, store_name: str, hook, prepend: bool, flags: dict) -> RemovableHandle:
    """Register `hook` in `module.<store_name>`; `flags` name the flag dicts it sets."""
    extra = tuple(getattr(module, name) for name in flags)
    handle = RemovableHandle(getattr(module, store_name), extra_dict=extra)
    _insert(getattr(module, store_name), handle.id, hook, prepend)
    for name, on in flags.items():
        if on:
            getattr(module, name)[handle.id] = True
    return handle


def register_module_forward_pre_hook(hook) -> RemovableHandle:
    """Matches `torch.nn.modules.module.register_module_forward_pre_hook`."""
    handle = RemovableHandle(_global_forward_pre_hooks, extra_dict=(ANY_GLOBAL,))
    _global_forward_pre_hooks[handle.id] = hook
    ANY_GLOBAL[handle.id] = hook
    return handle


def register_module_forward_hook(hook, *, always_call: bool = False) -> RemovableHandle:
    """Matches `torch.nn.modules.module.register_module_forward_hook`."""
    extra = (_global_forward_hooks_always_called, ANY_GLOBAL)
    handle = RemovableHandle(_global_forward_hooks, extra_dict=extra)
    _global_forward_hooks[handle.id] = hook
    ANY_GLOBAL[handle.id] = hook
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_full_backward_pre_hook(hook) -> RemovableHandle:
    handle = RemovableHandle(_global_backward_pre_hooks, extra_dict=(ANY_GLOBAL,))
    _global_backward_pre_hooks[handle.id] = hook
    ANY_GLOBAL[handle.id] = hook
    return handle


def register_module_full_backward_hook(hook) -> RemovableHandle:
    handle = RemovableHandle(_global_backward_hooks, extra_dict=(ANY_GLOBAL,))
    _global_backward_hooks[handle.id] = hook
    ANY_GLOBAL[handle.id] = hook
    return handle


# ---- the hooked call ----------------------------------------------------------------------------


def _run_pre_hooks(module, args, kwargs):
    hooks = {**_global_forward_pre_hooks, **module._forward_pre_hooks}
    for key, hook in hooks.items():
        if key in module._forward_pre_hooks_with_kwargs:
            result = hook(module, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(
                        "forward pre-hook must return None or a tuple of "
                        f"(new_args, new_kwargs), but got {result}."
                    )
                args, kwargs = result
        else:
            result = hook(module, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
    return args, kwargs


def _run_forward_hooks(module, args, kwargs, result, only_always: bool = False):
    hooks = {**_global_forward_hooks, **module._forward_hooks}
    for key, hook in hooks.items():
        if only_always and not (
            key in module._forward_hooks_always_called or key in _global_forward_hooks_always_called
        ):
            continue
        if key in module._forward_hooks_with_kwargs:
            out = hook(module, args, kwargs, result)
        else:
            out = hook(module, args, result)
        if out is not None:
            result = out
    return result


def call_with_hooks(module, args: tuple, kwargs: dict):
    """`module(*args, **kwargs)` with its forward and backward hooks run around forward."""
    try:
        args, kwargs = _run_pre_hooks(module, args, kwargs)
        full = list(_global_backward_hooks.values()) + list(module._backward_hooks.values())
        pre = list(_global_backward_pre_hooks.values()) + list(module._backward_pre_hooks.values())
        bw_hook = BackwardHook(module, full, pre) if full or pre else None
        if bw_hook is not None:
            args = bw_hook.setup_input_hook(args)
        result = module.forward(*args, **kwargs)
        result = _run_forward_hooks(module, args, kwargs, result)
    except Exception:
        if module._forward_hooks_always_called or _global_forward_hooks_always_called:
            try:
                _run_forward_hooks(module, args, kwargs, None, only_always=True)
            except Exception as hook_exc:
                warnings.warn(
                    "forward hook with ``always_call=True`` raised an exception "
                    f"that was silenced as another error was raised in forward: "
                    f"{hook_exc}",
                    stacklevel=2,
                )
        raise
    if bw_hook is not None:
        if not isinstance(result, (Tensor, tuple)):
            warnings.warn(
                "For backward hooks to be called, module output should be a Tensor "
                f"or a tuple of Tensors but received {type(result)}",
                stacklevel=3,
            )
        result = bw_hook.setup_output_hook(result)
    return result


# ---- full backward hooks ------------------------------------------------------------------------


class BackwardHookFunction(Function):
    """The identity the module's inputs and outputs pass through; see Note [Full backward hooks]."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(
            *[a for a in args if isinstance(a, Tensor) and not a.requires_grad]
        )
        return args

    @staticmethod
    def backward(ctx, *grads):
        return grads


_NO_INPUT_GRAD_WARNING = (
    "Full backward hook is firing when gradients are computed with respect to module outputs "
    "since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
    "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details."
)


class BackwardHook:
    """Runs a module's full backward (pre-)hooks at the right moments of one backward pass."""

    def __init__(self, module, user_hooks: list, user_pre_hooks: list):
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    def _wrap(self, args: tuple, register):
        index = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in index]
        if not (grad_state.enabled and any(t._requires_grad for t in tensors)):
            return args, None
        wrapped = BackwardHookFunction.apply(*tensors)
        node = next(t.grad_fn for t in wrapped if t.grad_fn is not None)
        register(node)
        new_args = list(args)
        for i, t in zip(index, wrapped):
            new_args[i] = t
        return tuple(new_args), index

    def setup_input_hook(self, args: tuple) -> tuple:
        self.n_inputs = len(args)
        new_args, self.input_tensors_index = self._wrap(args, self._register_input)
        return new_args

    def _register_input(self, node) -> None:
        def hook(grad_inputs, _):
            if self.grad_outputs is None:
                return None  # See Note [Full backward hooks]: not through the output
            # a tensor input that needs no grad gets the zeros its identity's backward gave
            # it (a non-differentiable output's gradient, materialized), as in PyTorch
            res = _pack(self.input_tensors_index, grad_inputs, self.n_inputs)
            for user_hook in self.user_hooks:
                out = user_hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise RuntimeError(
                        "Backward hook returned an invalid number of "
                        f"grad_input, got {len(out)}, but expected {len(res)}"
                    )
                res = out
            self.grad_outputs = None
            return tuple(res[i] for i in self.input_tensors_index)

        node.register_hook(hook)

    def setup_output_hook(self, result):
        single = isinstance(result, Tensor)
        outputs = (result,) if single else result
        if not isinstance(outputs, tuple):
            return result
        self.n_outputs = len(outputs)
        new, self.output_tensors_index = self._wrap(outputs, self._register_output)
        return new[0] if single else new

    def _register_output(self, node) -> None:
        def hook(grad_inputs, grad_outputs):
            self.grad_outputs = _pack(self.output_tensors_index, list(grad_outputs), self.n_outputs)
            self._run_pre_hooks()
            grad_outputs = self.grad_outputs  # what flows on, whatever the hooks below clear
            if self.input_tensors_index is None:
                self._fire_without_input_grads()
            return tuple(grad_outputs[i] for i in self.output_tensors_index)

        node.register_hook(hook)

    def _run_pre_hooks(self) -> None:
        expected = len(self.grad_outputs)
        for pre_hook in self.user_pre_hooks:
            out = pre_hook(self.module, self.grad_outputs)
            if out is None:
                continue
            if len(out) != expected:
                raise RuntimeError(
                    "Backward pre hook returned an invalid number of "
                    f"grad_output, got {len(out)}, but expected {expected}"
                )
            self.grad_outputs = tuple(out)

    def _fire_without_input_grads(self) -> None:
        # PyTorch warns for a module with backward pre-hooks only, too
        warnings.warn(_NO_INPUT_GRAD_WARNING, stacklevel=2)
        grad_inputs = (None,) * self.n_inputs
        for user_hook in self.user_hooks:
            res = user_hook(self.module, grad_inputs, self.grad_outputs)
            if res is not None and not (isinstance(res, tuple) and all(r is None for r in res)):
                raise RuntimeError(
                    "Backward hook for Modules where no input requires gradient "
                    "should always return None or None for all gradients."
                )
        self.grad_outputs = None


def _pack(index, values, size: int) -> tuple:
    res = [None] * size
    for i, v in zip(index, values):
        res[i] = v
    return tuple(res)
