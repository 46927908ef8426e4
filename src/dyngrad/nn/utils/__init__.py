"""`torch.nn.utils`: gradient clipping, flat parameter vectors, sequence padding (`rnn`),
parametrizations (`parametrize`, `parametrizations`), the old hook-based weight and spectral
norms, conv/linear + batch norm fusion."""

from __future__ import annotations

import importlib

from . import fusion, rnn, stateless  # noqa: F401 - torch.nn.utils.<submodule>
from .clip_grad import (
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .fusion import (
    fuse_conv_bn_eval,
    fuse_conv_bn_weights,
    fuse_linear_bn_eval,
    fuse_linear_bn_weights,
)
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm

__all__ = [
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grads_with_norm_",
    "clip_grad_value_",
    "convert_conv2d_weight_memory_format",
    "convert_conv3d_weight_memory_format",
    "fuse_conv_bn_eval",
    "fuse_conv_bn_weights",
    "fuse_linear_bn_eval",
    "fuse_linear_bn_weights",
    "get_total_norm",
    "parameters_to_vector",
    "parametrizations",
    "parametrize",
    "remove_spectral_norm",
    "remove_weight_norm",
    "rnn",
    "skip_init",
    "spectral_norm",
    "stateless",
    "vector_to_parameters",
    "weight_norm",
]

# What needs nn.modules loads on first use: nn.modules.rnn imports this package (for
# utils.rnn), so importing nn.modules here would be an import cycle. name: (module, attribute)
_ON_FIRST_USE = {
    "parametrize": (".parametrize", None),
    "parametrizations": (".parametrizations", None),
    "init": (".init", None),
    "memory_format": (".memory_format", None),
    "skip_init": (".init", "skip_init"),
    "convert_conv2d_weight_memory_format": (
        ".memory_format",
        "convert_conv2d_weight_memory_format",
    ),
    "convert_conv3d_weight_memory_format": (
        ".memory_format",
        "convert_conv3d_weight_memory_format",
    ),
}


def __getattr__(name: str):
    place = _ON_FIRST_USE.get(name)
    if place is None:
        raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
    module = importlib.import_module(place[0], __name__)
    value = module if place[1] is None else getattr(module, place[1])
    globals()[name] = value  # from now on a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_ON_FIRST_USE))
