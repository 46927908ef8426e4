"""`InstanceNorm1d/2d/3d` (per-sample, per-channel statistics) and `RMSNorm`."""

from __future__ import annotations

import warnings

from .. import functional as F
from .module import Module
from .normalization import _NormBase, _register_affine, _reset_affine

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "RMSNorm"]


class _InstanceNorm(_NormBase):
    # PyTorch's instance norms are norm bases with other defaults: no affine, no running stats
    _spatial = 1

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum=0.1,
        affine: bool = False,
        track_running_stats: bool = False,
        device=None,
        dtype=None,
    ):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)

    def forward(self, input):
        no_batch = self._spatial + 1
        if input.dim() not in (no_batch, no_batch + 1):
            raise ValueError(
                f"expected {no_batch}D or {no_batch + 1}D input (got {input.dim()}D input)"
            )
        feature_dim = input.dim() - no_batch
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(
                    f"expected input's size at dim={feature_dim} to match "
                    f"num_features ({self.num_features}), but got: "
                    f"{input.size(feature_dim)}."
                )
            warnings.warn(
                f"input's size at dim={feature_dim} does not match num_features. You "
                "can silence this warning by not passing in num_features, which is "
                "not used because affine=False",
                UserWarning,
                stacklevel=2,
            )
        batched = input.dim() == no_batch + 1
        x = input if batched else input.unsqueeze(0)
        out = F.instance_norm(
            x,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            self.training or not self.track_running_stats,
            self.momentum,
            self.eps,
        )
        return out if batched else out.squeeze(0)


class InstanceNorm1d(_InstanceNorm):
    """Matches `torch.nn.InstanceNorm1d`."""

    _spatial = 1


class InstanceNorm2d(_InstanceNorm):
    """Matches `torch.nn.InstanceNorm2d`."""

    _spatial = 2


class InstanceNorm3d(_InstanceNorm):
    """Matches `torch.nn.InstanceNorm3d`."""

    _spatial = 3


class RMSNorm(Module):
    """Matches `torch.nn.RMSNorm` over the trailing `normalized_shape` dims."""

    def __init__(
        self, normalized_shape, eps=None, elementwise_affine: bool = True, device=None, dtype=None
    ):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _register_affine(self, elementwise_affine, False, self.normalized_shape, device, dtype)
        _reset_affine(self)

    def forward(self, input):
        return F.rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
        )
