"""The old `torch.nn.utils.weight_norm` (deprecated for `parametrizations.weight_norm`): the
weight as `weight_g * weight_v / ||weight_v||`, recomputed by a forward pre-hook."""

from __future__ import annotations

import warnings

from ...ops.nn.weight_norm import _weight_norm, norm_except_dim
from ..parameter import Parameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]

_DEPRECATED = (
    "`torch.nn.utils.weight_norm` is deprecated in favor of "
    "`torch.nn.utils.parametrizations.weight_norm`."
)


class WeightNorm:
    """Matches `torch.nn.utils.weight_norm.WeightNorm`: the forward pre-hook that rebuilds the
    weight from its magnitude `<name>_g` and direction `<name>_v` before every forward."""

    def __init__(self, name: str, dim: int) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim  # -1: one norm over the whole tensor

    def compute_weight(self, module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module, name: str, dim: int) -> WeightNorm:
        # (PyTorch's warning names the line in its own weight_norm, as this one does)
        warnings.warn(_DEPRECATED, FutureWarning, stacklevel=2)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two weight_norm hooks on the same parameter {name}"
                )
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, fn.dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module) -> None:
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module, inputs) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name: str = "weight", dim: int | None = 0):
    """Matches `torch.nn.utils.weight_norm` (deprecated): reparametrise `module.<name>` as
    `<name>_g * <name>_v / ||<name>_v||`, the norm over every dim but `dim` (None: all)."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name: str = "weight"):
    """Matches `torch.nn.utils.remove_weight_norm`: `<name>` a plain Parameter again."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
