"""The old hook-based `torch.nn.utils.spectral_norm`: the weight as `weight_orig / sigma`,
recomputed by a forward pre-hook, with power-iteration vectors in `weight_u` and `weight_v`."""

from __future__ import annotations

from ...graph.grad_mode import no_grad
from ...ops.linalg.multi_dot import multi_dot
from .. import functional as F
from ..parameter import Parameter, UninitializedParameter

__all__ = [
    "SpectralNorm",
    "SpectralNormLoadStateDictPreHook",
    "SpectralNormStateDictHook",
    "spectral_norm",
    "remove_spectral_norm",
]


_CONV_MODULE = __name__.rsplit(".", 2)[0] + ".modules.conv"
_TRANSPOSED_CONVS = frozenset({"ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"})


def _normalize_into(target, vector, eps: float):
    # PyTorch's F.normalize(vector, dim=0, eps=eps, out=target)
    return target.copy_(F.normalize(vector, dim=0, eps=eps))


class SpectralNorm:
    """Matches `torch.nn.utils.spectral_norm.SpectralNorm`: the forward pre-hook. Between
    training-mode calls u = normalize(W v) holds; eval mode reuses u and v unchanged."""

    # version 1: `W` is no buffer, `v` is one, eval mode computes sigma from u, W_orig and v
    _version: int = 1

    def __init__(
        self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12
    ) -> None:
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but "
                f"got n_power_iterations={n_power_iterations}"
            )
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *[d for d in range(weight.dim()) if d != self.dim])
        return weight.reshape(weight.size(0), -1)

    def compute_weight(self, module, do_power_iteration: bool):
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            # u and v are updated in place (a replica sharing them sees it), then cloned: a
            # graph from an earlier forward saved their old values (GAN's D(real) - D(fake))
            with no_grad():
                for _ in range(self.n_power_iterations):
                    _normalize_into(v, weight_mat.t().mv(u), self.eps)
                    _normalize_into(u, weight_mat.mv(v), self.eps)
                u, v = u.clone(), v.clone()
        sigma = u.dot(weight_mat.mv(v))
        return weight / sigma

    def remove(self, module) -> None:
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs) -> None:
        setattr(module, self.name, self.compute_weight(module, module.training))

    def _solve_v_and_rescale(self, weight_mat, u, target_sigma):
        # a v with u = normalize(W v) and u^T W v = sigma; pinverse in case W^T W is singular
        gram_inverse = weight_mat.t().mm(weight_mat).pinverse()
        v = multi_dot([gram_inverse, weight_mat.t(), u.unsqueeze(1)]).squeeze(1)
        return v.mul_(target_sigma / u.dot(weight_mat.mv(v)))

    @staticmethod
    def apply(module, name: str, n_power_iterations: int, dim: int, eps: float) -> SpectralNorm:
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two spectral_norm hooks on the same parameter {name}"
                )
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        if isinstance(weight, UninitializedParameter):
            raise ValueError(
                "The module passed to `SpectralNorm` can't have uninitialized parameters. "
                "Make sure to run the dummy forward before applying spectral normalization"
            )
        with no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).size()
            u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        # `weight` stays an attribute (code reads it before any forward), a plain tensor so
        # that it is no parameter
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn


class SpectralNormLoadStateDictPreHook:
    """Matches PyTorch's: converts a checkpoint from before version 1 (`weight` saved, no
    `weight_v`), solving for a v consistent with the saved u and weight."""

    def __init__(self, fn: SpectralNorm) -> None:
        self.fn = fn

    def __call__(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ) -> None:
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is not None and version >= 1:
            return
        weight_key = prefix + fn.name
        if (
            version is None
            and all(weight_key + s in state_dict for s in ("_orig", "_u", "_v"))
            and weight_key not in state_dict
        ):
            return  # a current checkpoint without its metadata (crafted by hand)
        missing = [weight_key + s for s in ("_orig", "", "_u") if weight_key + s not in state_dict]
        if missing:
            if strict:
                missing_keys.extend(missing)
            return
        with no_grad():
            weight_orig = state_dict[weight_key + "_orig"]
            weight = state_dict.pop(weight_key)
            sigma = (weight_orig / weight).mean()
            weight_mat = fn.reshape_weight_to_matrix(weight_orig)
            u = state_dict[weight_key + "_u"]
            state_dict[weight_key + "_v"] = fn._solve_v_and_rescale(weight_mat, u, sigma)


class SpectralNormStateDictHook:
    """Matches PyTorch's: records the hook's version in the state dict's metadata."""

    def __init__(self, fn: SpectralNorm) -> None:
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata) -> None:
        versions = local_metadata.setdefault("spectral_norm", {})
        key = self.fn.name + ".version"
        if key in versions:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        versions[key] = self.fn._version


def _default_dim(module) -> int:
    # dim 1 holds the output channels of a transposed convolution's weight, dim 0 the others'.
    # The classes are recognised by name along the MRO: nn.modules imports this package (for
    # utils.rnn), so importing them here would close an import cycle
    for cls in type(module).__mro__:
        if cls.__module__ == _CONV_MODULE and cls.__name__ in _TRANSPOSED_CONVS:
            return 1
    return 0


def spectral_norm(
    module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12, dim=None
):
    """Matches `torch.nn.utils.spectral_norm`: `module.<name>` divided by its spectral norm,
    estimated by `n_power_iterations` steps of power iteration per training-mode forward."""
    if dim is None:
        dim = _default_dim(module)
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name: str = "weight"):
    """Matches `torch.nn.utils.remove_spectral_norm`: `<name>` a plain Parameter again."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            break
    else:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    for store, kind in (
        (module._state_dict_hooks, SpectralNormStateDictHook),
        (module._load_state_dict_pre_hooks, SpectralNormLoadStateDictPreHook),
    ):
        for key, hook in store.items():
            if isinstance(hook, kind) and hook.fn.name == name:
                del store[key]
                break
    return module
