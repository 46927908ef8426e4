"""`DistributedDataParallel`: one model replica per rank, gradients averaged during backward."""

from __future__ import annotations

import warnings
from contextlib import contextmanager

from ..._tensor import Tensor
from ...autograd.grad_mode import is_grad_enabled, no_grad
from ..modules.module import Module

__all__ = ["DistributedDataParallel"]

_MB = 1024 * 1024
_DEFAULT_BUCKET_CAP_MB = 25


class above:
    """How to reach dyngrad.distributed (a function that returns the package, loading it on
    first use), handed in by dyngrad: nn sits below the distributed tools (See Note [Calls up
    the layers] and Note [Parts loaded on first use])."""

    distributed = None


class DistributedDataParallel(Module):
    """Matches `torch.nn.parallel.DistributedDataParallel` on CPU, over MPI.

    At construction rank 0's parameters and buffers are broadcast to every rank; during
    backward, gradients are averaged in buckets of `bucket_cap_mb` as soon as their
    parameters are ready (See Note [Gradient buckets] in dyngrad/distributed/reducer.py);
    `no_sync()` accumulates locally. `module` is the wrapped model, so state_dict keys start
    with `module.`. Not supported: `mixed_precision`, `device_mesh`,
    `delay_all_reduce_named_params`, communication hooks and `join()`.
    """

    def __init__(
        self,
        module,
        device_ids=None,
        output_device=None,
        dim=0,
        broadcast_buffers=None,
        init_sync=True,
        process_group=None,
        bucket_cap_mb=None,
        find_unused_parameters=False,
        check_reduction=False,
        gradient_as_bucket_view=False,
        static_graph=False,
        delay_all_reduce_named_params=None,
        param_to_hook_all_reduce=None,
        mixed_precision=None,
        device_mesh=None,
        skip_all_reduce_unused_params=False,
        bucket_cap_mb_list=None,
        batched_grad_copy=False,
        forward_sync_buffers=None,
    ):
        super().__init__()
        dist = above.distributed()
        _check_options(delay_all_reduce_named_params, param_to_hook_all_reduce)
        _unsupported(mixed_precision, device_mesh, delay_all_reduce_named_params)
        self.process_group = process_group or dist.process_group.default_group()
        self.parameters_to_ignore = set(getattr(module, "_ddp_params_and_buffers_to_ignore", ()))
        self._module_parameters = [
            p for n, p in module.named_parameters() if n not in self.parameters_to_ignore
        ]
        _check_parameters(self._module_parameters, device_ids, output_device)
        self.device_ids = self.output_device = self.mixed_precision = None
        self.static_graph = False
        self.dim = dim
        self.module = module
        self.device = self._module_parameters[0].device
        init_sync_buffers = self._buffer_options(broadcast_buffers, forward_sync_buffers)
        self.find_unused_parameters = find_unused_parameters
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.gradient_as_bucket_view = gradient_as_bucket_view
        if check_reduction:
            warnings.warn(
                "The `check_reduction` argument in `DistributedDataParallel` module is "
                "deprecated. Please avoid using it.",
                FutureWarning,
                stacklevel=2,
            )
        first_cap = self._bucket_caps(bucket_cap_mb, bucket_cap_mb_list)
        params, names = self._build_params_for_reducer()
        if init_sync:
            self._sync_module_states(params, init_sync_buffers)
        self.reducer = dist.reducer.Reducer(
            params, names, self.process_group, first_cap, self.bucket_bytes_cap,
            find_unused_parameters or static_graph, gradient_as_bucket_view,
        )  # fmt: skip
        if static_graph:
            self._set_static_graph()

    def _bucket_caps(self, bucket_cap_mb, bucket_cap_mb_list) -> int:
        """Set torch's bucket attributes; return the first bucket's cap (1 MB by default)."""
        cap = _DEFAULT_BUCKET_CAP_MB if bucket_cap_mb is None else bucket_cap_mb
        if bucket_cap_mb_list:
            cap = max(bucket_cap_mb_list)
        self.bucket_bytes_cap = int(cap * _MB)
        self.broadcast_bucket_size = 250 * _MB
        if bucket_cap_mb is None and not bucket_cap_mb_list:
            return above.distributed().reducer.FIRST_BUCKET_BYTES
        return self.bucket_bytes_cap

    def _sync_module_states(self, params, with_buffers: bool) -> None:
        """Every rank's shapes must be rank 0's; then rank 0's values go to every rank."""
        dist = above.distributed()
        dist.module_states.verify_param_shapes(self.process_group, params)
        names = self.parameters_to_ignore
        states = [p for n, p in self.module.named_parameters() if n not in names]
        if with_buffers:
            states += self.modules_buffers
        with no_grad():
            dist.module_states.broadcast_states(self.process_group, states)

    def _buffer_options(self, broadcast_buffers, forward_sync_buffers) -> bool:
        if broadcast_buffers is not None:
            if forward_sync_buffers is not None:
                message = (
                    "Both `broadcast_buffers` and `forward_sync_buffers` were specified. "
                    "`broadcast_buffers` is deprecated and its value is ignored when "
                    "`forward_sync_buffers` is provided."
                )
            else:
                message = (
                    "`broadcast_buffers` is deprecated. Use `forward_sync_buffers` instead. "
                    "IMPORTANT: unlike `broadcast_buffers=False`, `forward_sync_buffers=False` "
                    "still syncs buffers at init. If you rely on buffers NOT being synced at "
                    "init (e.g. rank-local buffers), keep using `broadcast_buffers=False` until "
                    "`init_sync_buffers` is available."
                )
            warnings.warn(message, FutureWarning, stacklevel=3)
        if forward_sync_buffers is not None:
            self.forward_sync_buffers = forward_sync_buffers
            return True
        self.forward_sync_buffers = True if broadcast_buffers is None else broadcast_buffers
        return self.forward_sync_buffers

    @property
    def broadcast_buffers(self) -> bool:
        return self.forward_sync_buffers

    @broadcast_buffers.setter
    def broadcast_buffers(self, value: bool) -> None:
        self.forward_sync_buffers = value

    def _build_params_for_reducer(self):
        """The parameters that require grad, each once, named as in `self.module`."""
        params, names, seen = [], [], set()
        for module_name, submodule in self.module.named_modules():
            for param_name, p in submodule.named_parameters(recurse=False):
                name = f"{module_name}.{param_name}" if module_name else param_name
                if p.requires_grad and name not in self.parameters_to_ignore and id(p) not in seen:
                    seen.add(id(p))
                    params.append(p)
                    names.append(name)
        self._assign_modules_buffers()
        return params, names

    def _assign_modules_buffers(self) -> None:
        named = [
            (n, b) for n, b in self.module.named_buffers() if n not in self.parameters_to_ignore
        ]
        self.modules_buffers = [b for _, b in named]
        self.named_module_buffers = dict(named)

    def _set_static_graph(self) -> None:
        self.static_graph = True

    @contextmanager
    def no_sync(self):
        """Matches `DistributedDataParallel.no_sync`: inside it, forward-backward passes
        accumulate gradients locally; the first synced backward after it averages them."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    def forward(self, *inputs, **kwargs):
        syncing = is_grad_enabled() and self.require_backward_grad_sync
        if syncing:
            self.reducer.prepare_for_forward()
        if self.will_sync_module_buffers():
            self._sync_buffers()
        output = self.module(*inputs, **kwargs)
        if syncing:
            self.require_forward_param_sync = True
            searching = self.find_unused_parameters or self.static_graph
            self.reducer.prepare_for_backward(_find_tensors(output) if searching else [])
        else:
            self.require_forward_param_sync = False
        return output

    def will_sync_module_buffers(self) -> bool:
        return (
            self.require_forward_param_sync
            and self.forward_sync_buffers
            and len(self.modules_buffers) > 0
        )

    def _sync_buffers(self) -> None:
        """Rank 0's buffers (running statistics) to every rank, before each forward."""
        self._assign_modules_buffers()  # buffers may have been reassigned
        with no_grad():
            above.distributed().module_states.broadcast_states(
                self.process_group, self.modules_buffers
            )

    def train(self, mode: bool = True):
        super().train(mode)
        return self


def _unsupported(mixed_precision, device_mesh, delayed) -> None:
    for value, name in (
        (mixed_precision, "mixed_precision"),
        (device_mesh, "device_mesh"),
        (delayed, "delay_all_reduce_named_params"),
    ):
        if value is not None:
            raise NotImplementedError(
                f"DistributedDataParallel({name}=...) is not supported by dyngrad"
            )


def _check_options(delayed, hooked) -> None:
    if (delayed is None) != (hooked is None):
        raise ValueError(
            "delay_all_reduce_named_params and param_to_hook_all_reduce need to be set at the "
            "same time."
        )


def _check_parameters(params, device_ids, output_device) -> None:
    if not any(p.requires_grad for p in params):
        raise RuntimeError(
            "DistributedDataParallel is not needed when a module doesn't have any parameter "
            "that requires a gradient."
        )
    if device_ids is not None and len(device_ids) > 1:
        raise ValueError("device_ids can only be None or contain a single element.")
    if device_ids or output_device:
        devices = {p.device for p in params}
        raise ValueError(
            "DistributedDataParallel device_ids and output_device arguments only work with "
            "single-device/multiple-device GPU modules or CPU modules, but got device_ids "
            f"{device_ids}, output_device {output_device}, and module parameters {devices}."
        )


def _find_tensors(obj) -> list:
    """The tensors in a forward's output (tensors, sequences, dicts), for the unused search."""
    if isinstance(obj, Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for item in obj for t in _find_tensors(item)]
    if isinstance(obj, dict):
        return [t for item in obj.values() for t in _find_tensors(item)]
    return []
