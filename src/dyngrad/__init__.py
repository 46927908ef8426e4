"""dyngrad: PyTorch's dynamic graph and autograd on NumPy, as a glass box.

`import dyngrad as torch` and PyTorch code runs with the same values, gradients, grad_fn
names, warnings and errors.
"""

from __future__ import annotations

import functools as _functools
import gc as _gc
import importlib as _importlib
import sys as _sys
from contextlib import contextmanager as _contextmanager


@_contextmanager
def _collections_paused():
    enabled = _gc.isenabled()
    _gc.disable()
    try:
        yield
    finally:
        # what was made counts as old (freeze, then unfreeze into the oldest generation, both
        # without a pass over it): it would be, after the passes it no longer gets
        _gc.freeze()
        _gc.unfreeze()
        if enabled:
            _gc.enable()


# Note [Import without collections]
# Loading dyngrad makes ~100,000 objects (the op table, the nn classes), none of them garbage,
# and Python's cycle collector ran over all of them (and NumPy's) every few thousand: a tenth
# of `import dyngrad`. Collections wait until it is loaded (the collector's state is put back
# even when the import fails), and what exists then joins the oldest generation, where each
# object would have gone after its first two passes.
with _collections_paused():
    from . import autograd
    from ._tensor import Tensor
    from ._tensor_str import set_printoptions
    from .autograd.anomaly import is_anomaly_check_nan_enabled, is_anomaly_enabled
    from .graph.grad_mode import (
        enable_grad,
        inference_mode,
        is_grad_enabled,
        is_inference_mode_enabled,
        no_grad,
        set_grad_enabled,
    )
    from .ops import FUNCTIONS as _FUNCTIONS
    from .ops import result_type
    from .runtime import device
    from .runtime.dtypes import (
        bfloat16,
        bool_,
        can_cast,
        cdouble,
        cfloat,
        complex64,
        complex128,
        double,
        dtype,
        float16,
        float32,
        float64,
        get_default_dtype,
        half,
        int8,
        int16,
        int32,
        int64,
        long,
        promote_types,
        set_default_dtype,
        short,
        uint8,
    )
    from .runtime.dtypes import float_ as float  # noqa: A001
    from .runtime.dtypes import int_ as int  # noqa: A001
    from .runtime.layouts import layout, sparse_coo, strided
    from .runtime.random import Generator, default_generator, initial_seed, manual_seed, seed
    from .runtime.threads import get_num_threads, set_num_threads
    from .size import Size

    globals().update(_FUNCTIONS)

    # Library layers (one line each; keep this block sorted)
    from . import (
        amp,
        backends,
        cpu,
        cuda,
        fft,
        jit,
        linalg,
        nn,
        optim,
        random,
        sparse,
        special,
        storage,
        utils,
        version,
    )
    from ._globals import *  # noqa: F403 - inf, nan, pi, e, newaxis, warn-always, matmul precision
    from ._higher_order_ops import cond, while_loop
    from ._lobpcg import lobpcg
    from ._lowrank import pca_lowrank, svd_lowrank
    from ._storage import is_storage
    from .runtime.storage import LEGACY as _LEGACY_STORAGES
    from .runtime.storage import TypedStorage, UntypedStorage

    globals().update(_LEGACY_STORAGES)  # torch.FloatStorage, ...; torch.Storage is FloatStorage
    Storage = _LEGACY_STORAGES["FloatStorage"]
    from .amp import autocast
    from .amp.autocast_mode import (
        clear_autocast_cache,
        get_autocast_dtype,
        is_autocast_cache_enabled,
        is_autocast_enabled,
        set_autocast_cache_enabled,
        set_autocast_dtype,
        set_autocast_enabled,
    )
    from .amp.legacy_functions import *  # noqa: F403 - torch.set_autocast_cpu_enabled, ...
    from .random import get_rng_state, set_rng_state
    from .runtime.interop import *  # noqa: F403 - torch.get_num_interop_threads, ...
    from .utils.dlpack import from_dlpack, to_dlpack

    # isort: split
    from ._functional_aliases import *  # noqa: F403 - torch.conv2d, torch.layer_norm, ...
    from ._settings import *  # noqa: F403 - default device, deterministic algorithms
    from .nn.aten_functions import *  # noqa: F403 - torch.convolution, native_layer_norm, ...
    from .nn.rnn_functional import *  # noqa: F403 - torch.lstm_cell, torch.gru, ...

    # isort: split
    # Namespaces real programs import, and Tensor's is_mps / is_sparse / ... predicates
    from . import (
        _C,
        _functional_aliases,
        _logging,
        _settings,
        _tensor_kinds,
        _torch_alias,
        accelerator,
    )

_tensor_kinds.install(Tensor)

# Note [Parts loaded on first use]
# The tools most scripts never touch (the doctor, torch.compile, distributions, func
# transforms, graph pictures, testing, onnx, torch._foreach_*) are a quarter of dyngrad's
# modules. They load
# when first reached: `torch.distributions` (an attribute), `import torch.distributions` and
# `from torch.func import vmap` all work as in PyTorch, through the module's __getattr__ (PEP
# 562) or the import system itself. What such a part hands down to the layers below when it
# loads (`Module.compile`) is handed down here as a function that loads it first.
_ON_FIRST_USE = {  # name on dyngrad -> (module, attribute of it; None: the module itself)
    "_dynamo": ("dyngrad._dynamo", None),
    "compiler": ("dyngrad.compiler", None),
    "distributed": ("dyngrad.distributed", None),
    "distributions": ("dyngrad.distributions", None),
    "doctor": ("dyngrad.doctor", None),
    "func": ("dyngrad.func", None),
    "multiprocessing": ("dyngrad.multiprocessing", None),
    "onnx": ("dyngrad.onnx", None),
    "profiler": ("dyngrad.profiler", None),
    "serialization": ("dyngrad.serialization", None),
    "signal": ("dyngrad.signal", None),
    "testing": ("dyngrad.testing", None),
    "types": ("dyngrad.types", None),
    "viz": ("dyngrad.viz", None),
    "compile": ("dyngrad._dynamo.eval_frame", "compile"),  # torch.compile
    "load": ("dyngrad.serialization", "load"),
    "save": ("dyngrad.serialization", "save"),
    "vmap": ("dyngrad.func", "vmap"),  # torch.vmap is torch.func.vmap
}


def __getattr__(name: str):
    place = _ON_FIRST_USE.get(name)
    if place is not None:
        module = _importlib.import_module(place[0])
        value = module if place[1] is None else getattr(module, place[1])
    elif name.startswith("_foreach_"):  # torch._foreach_*: ops/foreach publishes them
        _importlib.import_module("dyngrad.ops.foreach.functions")
        _importlib.import_module("dyngrad.ops.foreach.overloads")
        value = _FUNCTIONS.get(name)
    else:
        value = None
    if value is None:
        raise AttributeError(f"module 'dyngrad' has no attribute '{name}'")
    globals()[name] = value  # from now on a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_ON_FIRST_USE))


def _module_compile(self, *args, **kwargs):
    """Matches `Module.compile` (torch.compile loads with its first use, then replaces this)."""
    return _importlib.import_module("dyngrad._dynamo.eval_frame")._module_compile(
        self, *args, **kwargs
    )


nn.Module.compile = _module_compile
# DistributedDataParallel and DistributedSampler reach torch.distributed through this
nn.parallel.distributed.above.distributed = utils.data.distributed.above.distributed = (
    _functools.partial(_importlib.import_module, "dyngrad.distributed")
)
# torch.autograd.profiler's legacy profile and emit_nvtx live with torch.profiler (tools)
autograd.profiler.above.profiler = _functools.partial(_importlib.import_module, "dyngrad.profiler")

# -- end of library layers
bool = bool_  # noqa: A001 - torch.bool
autograd.torch = _sys.modules[__name__]  # torch.autograd.torch: PyTorch's autograd imports torch

# dyngrad's release; where `import torch` means dyngrad, `install_as_torch` sets PyTorch's
# form, "2.13.0+dyngrad.0.1.0" (See Note [torch alias])
__version__ = version.dyngrad


def install_as_torch() -> None:
    """Make `import torch` (and every `torch.*` module) mean dyngrad in this process, for
    notebooks and for libraries written against torch (einops, torchinfo, tqdm, ...).

    `python -m dyngrad run script.py` does this before running the script. Afterwards
    `torch is dyngrad`, a torch API dyngrad lacks raises an error naming it, `torch.__version__`
    reads "2.13.0+dyngrad.<version>", and DataLoader workers started by spawn or forkserver
    see the same alias. Call it before anything imports the real torch.
    """
    _torch_alias.install()


def uninstall_as_torch() -> None:
    """Undo `install_as_torch`: later `import torch` reaches the real PyTorch (if installed)."""
    _torch_alias.uninstall()


def is_tensor(obj) -> bool:
    """Matches `torch.is_tensor`."""
    return isinstance(obj, Tensor)


def is_inference(input) -> bool:
    """Matches `torch.is_inference`: whether `input` was made in inference mode."""
    return input.is_inference()


def is_floating_point(input) -> bool:
    return input.is_floating_point()


def numel(input) -> int:
    return input.numel()


__all__ = sorted(
    set(_FUNCTIONS)
    | set(_functional_aliases.__all__)
    | set(_settings.__all__)
    | set(nn.aten_functions.__all__)
    | set(amp.legacy_functions.__all__)
    | {"get_num_interop_threads", "set_num_interop_threads", "init_num_threads"}
    | {"set_flush_denormal", "is_storage", "from_dlpack", "to_dlpack"}
    | {"TypedStorage", "UntypedStorage"}
    | {f"{kind}Storage" for kind in ("Bool", "Byte", "Char", "Double", "Float", "Int", "Long")}
    | {"ShortStorage"}
    | {"cond", "while_loop", "pca_lowrank", "svd_lowrank", "lobpcg"}
    | set(nn.rnn_functional.__all__)
    | {
        "Tensor",
        "Size",
        "layout",
        "strided",
        "sparse_coo",
        "sparse",
        "autograd",
        "compile",
        "compiler",
        "device",
        "dtype",
        "Generator",
        "manual_seed",
        "seed",
        "initial_seed",
        "default_generator",
        "get_rng_state",
        "set_rng_state",
        "no_grad",
        "enable_grad",
        "set_grad_enabled",
        "inference_mode",
        "is_grad_enabled",
        "is_inference_mode_enabled",
        "get_default_dtype",
        "set_default_dtype",
        "set_printoptions",
        "promote_types",
        "result_type",
        "can_cast",
        "is_tensor",
        "install_as_torch",
        "uninstall_as_torch",
        "is_inference",
        "numel",
        "is_floating_point",
        "is_anomaly_enabled",
        "is_anomaly_check_nan_enabled",
        "float32",
        "float64",
        "float16",
        "bfloat16",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "bool",
        "float",
        "double",
        "half",
        "long",
        "int",
        "short",
        "complex64",
        "complex128",
        "cfloat",
        "cdouble",
        "get_num_threads",
        "set_num_threads",
    }
)
