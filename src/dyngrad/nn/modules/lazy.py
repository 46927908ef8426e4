"""Lazy modules: `LazyModuleMixin` and the layers whose input size is read from their first
call (LazyLinear, LazyConv*, LazyConvTranspose1d/2d, LazyBatchNorm*, LazyInstanceNorm*).

A lazy layer is built as its ordinary layer with zero input features and uninitialized
parameters (See Note [Uninitialized tensors] in parameter.py). A forward pre-hook reads the
input's size, materializes the parameters, initializes them exactly as the ordinary layer
would (the same draws from the generator), and turns the module into that layer's class.
"""

from __future__ import annotations

import itertools

from ..._handles import RemovableHandle
from ...graph.grad_mode import no_grad
from ...ops.creation.factories import tensor
from ..parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, _InstanceNorm
from .linear import Linear
from .normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d, _BatchNorm, _NormBase

__all__ = [
    "LazyModuleMixin",
    "LazyLinear",
    "LazyConv1d",
    "LazyConv2d",
    "LazyConv3d",
    "LazyConvTranspose1d",
    "LazyConvTranspose2d",
    "LazyConvTranspose3d",
    "LazyBatchNorm1d",
    "LazyBatchNorm2d",
    "LazyBatchNorm3d",
    "LazyInstanceNorm1d",
    "LazyInstanceNorm2d",
    "LazyInstanceNorm3d",
]


class LazyModuleMixin:
    """Matches `torch.nn.modules.lazy.LazyModuleMixin`: parameters shaped on the first call,
    after which the module becomes `cls_to_become`."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # the bound method itself (not a closure over it): the module still pickles
        self._load_hook = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[self._load_hook.id] = self._lazy_load_hook
        self._initialize_hook = self.register_forward_pre_hook(
            type(self)._infer_parameters, with_kwargs=True
        )

    def _save_to_state_dict(self, destination, prefix: str, keep_vars: bool) -> None:
        # an uninitialized parameter goes in as itself: it has no values to detach
        for name, param in self._parameters.items():
            if param is not None:
                keep = is_lazy(param) or keep_vars
                destination[prefix + name] = param if keep else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                keep = is_lazy(buf) or keep_vars
                destination[prefix + name] = buf if keep else buf.detach()

    def _lazy_load_hook(self, state_dict, prefix, *args) -> None:
        """Loading initialized values into an uninitialized module shapes its tensors first."""
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None and is_lazy(param):
                value = state_dict[key]
                if not is_lazy(value):
                    with no_grad():
                        param.materialize(value.shape)

    def initialize_parameters(self, *args, **kwargs) -> None:
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}"
        )

    def has_uninitialized_params(self) -> bool:
        """Whether any parameter or buffer still waits for the first call."""
        tensors = itertools.chain(self._parameters.values(), self._buffers.values())
        return any(is_lazy(t) for t in tensors)

    def _infer_parameters(self, args, kwargs=None):
        self.initialize_parameters(*args, **(kwargs or {}))
        if self.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        self._initialize_hook.remove()
        self._load_hook.remove()
        del self._initialize_hook
        del self._load_hook
        if self.cls_to_become is not None:
            self.__class__ = self.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError(
            "Modules with uninitialized parameters can't be used with `DataParallel`. Run a "
            "dummy forward pass to correctly initialize the modules"
        )


# ---- linear ------------------------------------------------------------------------------


class LazyLinear(LazyModuleMixin, Linear):
    """Matches `torch.nn.LazyLinear`: `in_features` from the input's last dim."""

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None):
        super().__init__(0, 0, False)  # no bias yet: it would be made only to be replaced
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()


# ---- convolutions ------------------------------------------------------------------------


class _LazyConvXdMixin(LazyModuleMixin):
    def _lazy_init(self, out_channels: int, bias: bool, device, dtype) -> None:
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs) -> None:
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self.transposed:
                shape = (self.in_channels, self.out_channels // self.groups)
            else:
                shape = (self.out_channels, self.in_channels // self.groups)
            self.weight.materialize(shape + tuple(self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input) -> int:
        no_batch = self._nd + 1
        if input.dim() not in (no_batch, no_batch + 1):
            raise RuntimeError(
                f"Expected {no_batch}D (unbatched) or {no_batch + 1}D (batched) input to "
                f"{self.__class__.__name__}, but got input of size: {input.shape}"
            )
        return input.shape[1] if input.dim() == no_batch + 1 else input.shape[0]


def _conv_init(
    self,
    out_channels: int,
    kernel_size,
    stride=1,
    padding=0,
    dilation=1,
    groups: int = 1,
    bias: bool = True,
    padding_mode: str = "zeros",
    device=None,
    dtype=None,
):
    # zero channels and no bias until the first call: nothing is made only to be replaced
    args = (kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype)
    LazyModuleMixin.__init__(self, 0, 0, *args)
    self._lazy_init(out_channels, bias, device, dtype)


def _conv_transpose_init(
    self,
    out_channels: int,
    kernel_size,
    stride=1,
    padding=0,
    output_padding=0,
    groups: int = 1,
    bias: bool = True,
    dilation=1,
    padding_mode: str = "zeros",
    device=None,
    dtype=None,
):
    args = (kernel_size, stride, padding, output_padding, groups, False, dilation)
    LazyModuleMixin.__init__(self, 0, 0, *args, padding_mode, device, dtype)
    self._lazy_init(out_channels, bias, device, dtype)


class LazyConv1d(_LazyConvXdMixin, Conv1d):
    """Matches `torch.nn.LazyConv1d`."""

    cls_to_become = Conv1d
    __init__ = _conv_init


class LazyConv2d(_LazyConvXdMixin, Conv2d):
    """Matches `torch.nn.LazyConv2d`."""

    cls_to_become = Conv2d
    __init__ = _conv_init


class LazyConv3d(_LazyConvXdMixin, Conv3d):
    """Matches `torch.nn.LazyConv3d`."""

    cls_to_become = Conv3d
    __init__ = _conv_init


class LazyConvTranspose1d(_LazyConvXdMixin, ConvTranspose1d):
    """Matches `torch.nn.LazyConvTranspose1d`."""

    cls_to_become = ConvTranspose1d
    __init__ = _conv_transpose_init


class LazyConvTranspose2d(_LazyConvXdMixin, ConvTranspose2d):
    """Matches `torch.nn.LazyConvTranspose2d`."""

    cls_to_become = ConvTranspose2d
    __init__ = _conv_transpose_init


class LazyConvTranspose3d(_LazyConvXdMixin, ConvTranspose3d):
    """Matches `torch.nn.LazyConvTranspose3d`."""

    cls_to_become = ConvTranspose3d
    __init__ = _conv_transpose_init


# ---- normalization -----------------------------------------------------------------------


class _LazyNormBase(LazyModuleMixin, _NormBase):
    def __init__(
        self,
        eps: float = 1e-5,
        momentum=0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device=None,
        dtype=None,
    ):
        # no affine or statistics yet: they would be made only to be replaced
        super().__init__(0, eps, momentum, False, False, device, dtype)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = tensor(0, device=device)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            if self.affine:
                self.weight.materialize((self.num_features,))
                self.bias.materialize((self.num_features,))
            if self.track_running_stats:
                self.running_mean.materialize((self.num_features,))
                self.running_var.materialize((self.num_features,))
            self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """Matches `torch.nn.LazyBatchNorm1d`: `num_features` from the input's dim 1."""

    cls_to_become = BatchNorm1d
    _check_input_dim = BatchNorm1d._check_input_dim


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """Matches `torch.nn.LazyBatchNorm2d`."""

    cls_to_become = BatchNorm2d
    _check_input_dim = BatchNorm2d._check_input_dim


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """Matches `torch.nn.LazyBatchNorm3d`."""

    cls_to_become = BatchNorm3d
    _check_input_dim = BatchNorm3d._check_input_dim


# PyTorch's lazy instance norms keep the lazy base's defaults (affine and running statistics
# on), unlike InstanceNorm*d's
class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    """Matches `torch.nn.LazyInstanceNorm1d`."""

    cls_to_become = InstanceNorm1d
    _spatial = 1


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    """Matches `torch.nn.LazyInstanceNorm2d`."""

    cls_to_become = InstanceNorm2d
    _spatial = 2


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    """Matches `torch.nn.LazyInstanceNorm3d`."""

    cls_to_become = InstanceNorm3d
    _spatial = 3
