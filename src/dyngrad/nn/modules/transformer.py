"""Transformer stacks: `TransformerEncoder`, `TransformerDecoder` and `Transformer`."""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable

from ... import backends
from ...graph.grad_mode import is_grad_enabled
from ...ops.creation.factories import full
from ...ops.shape.diagonal import triu
from ...runtime.warn_always import warn_once
from .. import functional as F
from .. import init
from ..functional_attention import canonical_mask, none_or_dtype
from .container import ModuleList
from .module import Module
from .normalization import LayerNorm
from .transformer_layer import TransformerDecoderLayer, TransformerEncoderLayer

__all__ = [
    "Transformer",
    "TransformerEncoder",
    "TransformerDecoder",
    "TransformerEncoderLayer",
    "TransformerDecoderLayer",
]


def _generate_square_subsequent_mask(sz: int, device=None, dtype=None):
    return triu(full((sz, sz), float("-inf"), dtype=dtype, device=device), diagonal=1)


def _get_seq_len(src, batch_first: bool) -> int | None:
    if src.dim() == 2:  # unbatched (S, E)
        return src.shape[0]
    return src.shape[1 if batch_first else 0]


def _detect_is_causal_mask(mask, is_causal: bool | None = None, size: int | None = None) -> bool:
    """The `is_causal` hint as given, or (None) whether `mask` is the square causal mask."""
    if is_causal is not None or mask is None:
        return is_causal is True
    sz = size if size is not None else mask.shape[-2]
    causal = _generate_square_subsequent_mask(sz, device=mask.device, dtype=mask.dtype)
    return tuple(mask.shape) == tuple(causal.shape) and bool((mask == causal).all())


def _get_clones(module: Module, n: int) -> ModuleList:
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


def _why_not_sparsity_fast_path(layer) -> str:
    """Why PyTorch's encoder can't run `layer` on nested tensors ("" when it can)."""
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    attn = layer.self_attn
    checks = [
        (layer.norm_first, f"{name}.norm_first was True"),
        (
            not attn.batch_first,
            f"{name}.self_attn.batch_first was not True"
            "(use batch_first for better inference performance)",
        ),
        (not attn._qkv_same_embed_dim, f"{name}.self_attn._qkv_same_embed_dim was not True"),
        (attn.in_proj_bias is None, f"{name}.self_attn was passed bias=False"),
        (not layer.activation_relu_or_gelu, f"{name}.activation_relu_or_gelu was not True"),
        (layer.norm1.eps != layer.norm2.eps, f"{name}.norm1.eps was not equal to {name}.norm2.eps"),
        (attn.num_heads % 2 == 1, f"{name}.self_attn.num_heads is odd"),
    ]
    return next((why for failed, why in checks if failed), "")


class TransformerEncoder(Module):
    """Matches `torch.nn.TransformerEncoder`: `num_layers` deep copies of one layer.

    In eval mode without grad, PyTorch runs a padded batch as nested tensors and returns
    zeros at the padded positions; dyngrad gives the same values (without nested tensors).
    """

    def __init__(
        self,
        encoder_layer,
        num_layers: int,
        norm: Module | None = None,
        enable_nested_tensor: bool = True,
        mask_check: bool = True,
    ):
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why_not = _why_not_sparsity_fast_path(encoder_layer)
        if enable_nested_tensor and why_not:
            warnings.warn(
                "enable_nested_tensor is True, but self.use_nested_tensor is False "
                f"because {why_not}",
                stacklevel=2,
            )
            self.use_nested_tensor = False

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal: bool | None = None):
        """Runs `src` through every layer, then `norm`; masks as the layer's."""
        src_key_padding_mask = canonical_mask(
            src_key_padding_mask, "src_key_padding_mask", none_or_dtype(mask), "mask", src.dtype
        )
        mask = canonical_mask(mask, "mask", None, "", src.dtype, check_other=False)
        padded = self._nested_padding(src, mask, src_key_padding_mask)
        batch_first = self.layers[0].self_attn.batch_first
        is_causal = _detect_is_causal_mask(mask, is_causal, _get_seq_len(src, batch_first))
        output = src
        for mod in self.layers:
            output = mod(
                output,
                src_mask=mask,
                is_causal=is_causal,
                src_key_padding_mask=src_key_padding_mask,
            )
        if padded is not None:
            output = output.masked_fill(padded, 0.0)
        return self.norm(output) if self.norm is not None else output

    def _nested_padding(self, src, mask, key_padding_mask):
        """The padded positions PyTorch's nested-tensor path zeroes, as (N, S, 1), or None."""
        first = self.layers[0]
        if not (backends.mha.get_fastpath_enabled() and getattr(self, "use_nested_tensor", False)):
            return None
        if first.training or src.dim() != 3 or key_padding_mask is None or mask is not None:
            return None
        padded = key_padding_mask != 0
        valid = padded.logical_not()
        if self.mask_check and bool((valid[:, 1:] & ~valid[:, :-1]).any()):
            return None  # not left aligned
        tensors = (src, *first.parameters())
        if is_grad_enabled() and any(t.requires_grad for t in tensors):
            return None
        _warn_nested_prototype()
        return padded.unsqueeze(-1)


def _warn_nested_prototype() -> None:
    # where PyTorch builds a nested tensor it warns, once per process (TORCH_WARN_ONCE)
    if warn_once("nested tensor prototype"):
        warnings.warn(
            "The PyTorch API of nested tensors is in prototype stage and will change in the "
            "near future. We recommend specifying layout=torch.jagged when constructing a nested "
            "tensor, as this layout receives active development, has better operator coverage, "
            "and works with torch.compile. (dyngrad runs this padded batch without nested "
            "tensors, with the same values.)",
            UserWarning,
            stacklevel=4,
        )


class TransformerDecoder(Module):
    """Matches `torch.nn.TransformerDecoder`: `num_layers` deep copies of one layer."""

    def __init__(self, decoder_layer, num_layers: int, norm: Module | None = None):
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(
        self,
        tgt,
        memory,
        tgt_mask=None,
        memory_mask=None,
        tgt_key_padding_mask=None,
        memory_key_padding_mask=None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ):
        """Runs `tgt` (attending to `memory`) through every layer, then `norm`."""
        seq_len = _get_seq_len(tgt, self.layers[0].self_attn.batch_first)
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, seq_len)
        output = tgt
        for mod in self.layers:
            output = mod(
                output,
                memory,
                tgt_mask=tgt_mask,
                memory_mask=memory_mask,
                tgt_key_padding_mask=tgt_key_padding_mask,
                memory_key_padding_mask=memory_key_padding_mask,
                tgt_is_causal=tgt_is_causal,
                memory_is_causal=memory_is_causal,
            )
        return self.norm(output) if self.norm is not None else output


class Transformer(Module):
    """Matches `torch.nn.Transformer`: an encoder and a decoder stack, each ending in LayerNorm."""

    def __init__(
        self,
        d_model: int = 512,
        nhead: int = 8,
        num_encoder_layers: int = 6,
        num_decoder_layers: int = 6,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: str | Callable = F.relu,
        custom_encoder=None,
        custom_decoder=None,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device=None,
        dtype=None,
    ):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        layer_args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps)
        layer_args += (batch_first, norm_first, bias)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(*layer_args, **factory)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(*layer_args, **factory)
            norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, norm)
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(
        self,
        src,
        tgt,
        src_mask=None,
        tgt_mask=None,
        memory_mask=None,
        src_key_padding_mask=None,
        tgt_key_padding_mask=None,
        memory_key_padding_mask=None,
        src_is_causal: bool | None = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ):
        """Encodes `src`, then decodes `tgt` against it; boolean masks block where True."""
        batch_dim = 0 if self.batch_first else 1
        if src.dim() == 3 and src.shape[batch_dim] != tgt.shape[batch_dim]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(
            src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal
        )
        return self.decoder(
            tgt,
            memory,
            tgt_mask=tgt_mask,
            memory_mask=memory_mask,
            tgt_key_padding_mask=tgt_key_padding_mask,
            memory_key_padding_mask=memory_key_padding_mask,
            tgt_is_causal=tgt_is_causal,
            memory_is_causal=memory_is_causal,
        )

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device=None, dtype=None):
        """A float (sz, sz) mask: -inf above the diagonal, 0 elsewhere."""
        return _generate_square_subsequent_mask(sz, device=device, dtype=dtype)

    def _reset_parameters(self) -> None:
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)
