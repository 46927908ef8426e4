"""Build one layer in torch and in dyngrad from the same weights; compare outputs and grads.

`twins(torch, make)` runs `make(nn)` on both libraries and copies torch's initialised
state_dict into dyngrad's module through NumPy (which also exercises `load_state_dict`).
`assert_same(torch, pair, inputs)` runs both forwards on the same inputs, backpropagates the
same random cotangent, and compares outputs, input gradients and every parameter gradient.
"""

from __future__ import annotations

import numpy as np

import dyngrad


def twins(torch, make, dtype: str = "float64"):
    """(torch_module, dyngrad_module) with identical parameters and buffers."""
    theirs = make(torch.nn)
    ours = make(dyngrad.nn)
    if dtype == "float64":
        theirs, ours = theirs.double(), ours.double()
    state = {k: dyngrad.tensor(v.detach().numpy().copy()) for k, v in theirs.state_dict().items()}
    ours.load_state_dict(state)
    return theirs, ours


def _tensors(out) -> list:
    if isinstance(out, (tuple, list)):
        return [x for o in out for x in _tensors(o)]
    return [out] if out is not None and hasattr(out, "shape") else []


def _inputs(module, arrays, grad: bool):
    made = []
    for a in arrays:
        if isinstance(a, np.ndarray):
            t = module.from_numpy(a.copy())
            made.append(t.requires_grad_(True) if grad and a.dtype.kind == "f" else t)
        else:
            made.append(a)
    return made


def assert_same(torch, pair, arrays, call=None, rtol=1e-7, atol=1e-9, grad=True, seed=0):
    """Forward both modules on `arrays`, then compare outputs and all gradients."""
    theirs, ours = pair
    call = call or (lambda m, *xs: m(*xs))
    t_in, d_in = _inputs(torch, arrays, grad), _inputs(dyngrad, arrays, grad)
    t_out, d_out = _tensors(call(theirs, *t_in)), _tensors(call(ours, *d_in))
    assert len(t_out) == len(d_out)
    for t, d in zip(t_out, d_out):
        assert tuple(d.shape) == tuple(t.shape)
        assert d.dtype.name == str(t.dtype).replace("torch.", "")
        np.testing.assert_allclose(d.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)
    if not grad:
        return d_out
    rng = np.random.default_rng(seed)
    pairs = [(t, d) for t, d in zip(t_out, d_out) if t.requires_grad]
    cotangents = [rng.standard_normal(tuple(t.shape)) for t, _ in pairs]
    sum((t * torch.from_numpy(c)).sum() for (t, _), c in zip(pairs, cotangents)).backward()
    sum((d * dyngrad.from_numpy(c)).sum() for (_, d), c in zip(pairs, cotangents)).backward()
    for t, d in zip(t_in, d_in):
        if hasattr(t, "grad") and t.requires_grad:
            np.testing.assert_allclose(d.grad.numpy(), t.grad.numpy(), rtol=rtol, atol=atol)
    ours_named = dict(ours.named_parameters())
    for name, p in theirs.named_parameters():
        if p.grad is None:
            assert ours_named[name].grad is None or not np.any(ours_named[name].grad.numpy())
            continue
        np.testing.assert_allclose(
            ours_named[name].grad.numpy(), p.grad.numpy(), rtol=rtol, atol=atol, err_msg=name
        )
    return d_out
