"""Generic tests over every op spec: forward vs reference, gradcheck, gradgradcheck, parity."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import dyngrad
from dyngrad.ops.table.registry import OPS

from .spec import OpSpec
from .specs import SPECS

CASES = [(spec, i) for spec in SPECS for i in range(len(spec.samples))]
IDS = [f"{spec.name}-{i}" for spec, i in CASES]


def _seed(spec: OpSpec, i: int) -> int:
    return zlib.crc32(f"{spec.name}/{i}".encode())


def _outputs(out) -> list:
    if isinstance(out, (tuple, list)):
        return [o for o in out if isinstance(o, dyngrad.Tensor)]
    return [out]


def _numpy(x):
    return x.detach().cpu().numpy() if hasattr(x, "detach") else np.asarray(x)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("spec,i", CASES, ids=IDS)
def test_forward_matches_reference(spec, i, dtype):
    if dtype in spec.skip_dtypes:
        pytest.skip(f"{spec.name} does not run in {dtype}")
    inputs = spec.inputs(dyngrad, spec.samples[i], dtype, _seed(spec, i))
    out = _outputs(spec.fn(dyngrad, *inputs))
    if spec.ref is not None:
        arrays = [x.detach().numpy() if isinstance(x, dyngrad.Tensor) else x for x in inputs]
        expected = spec.ref(np, *arrays)
        expected = expected if isinstance(expected, (tuple, list)) else [expected]
        tol = 1e-4 if dtype == "float32" else 1e-10
        for o, e in zip(out, expected):
            np.testing.assert_allclose(
                _numpy(o).astype(np.float64), np.asarray(e, np.float64), rtol=tol, atol=tol
            )
    for o in out:
        assert isinstance(o, dyngrad.Tensor)


@pytest.mark.parametrize(
    "spec,i", [c for c in CASES if c[0].grad], ids=[x for c, x in zip(CASES, IDS) if c[0].grad]
)
def test_gradcheck(spec, i):
    inputs = spec.inputs(dyngrad, spec.samples[i], "float64", _seed(spec, i))
    assert dyngrad.autograd.gradcheck(
        lambda *a: spec.fn(dyngrad, *a), inputs, atol=spec.grad_atol, rtol=spec.grad_rtol
    )


@pytest.mark.parametrize(
    "spec,i",
    [c for c in CASES if c[0].grad and c[0].gradgrad],
    ids=[x for c, x in zip(CASES, IDS) if c[0].grad and c[0].gradgrad],
)
def test_gradgradcheck(spec, i):
    inputs = spec.inputs(dyngrad, spec.samples[i], "float64", _seed(spec, i))
    assert dyngrad.autograd.gradgradcheck(
        lambda *a: spec.fn(dyngrad, *a), inputs, atol=spec.grad_atol, rtol=spec.grad_rtol
    )


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("spec,i", CASES, ids=IDS)
def test_matches_torch(spec, i, dtype, torch):
    """Values, gradients and grad_fn names equal torch's on the same inputs."""
    if dtype in spec.skip_dtypes:
        pytest.skip(f"{spec.name} does not run in {dtype}")
    seed = _seed(spec, i)
    ours = spec.inputs(dyngrad, spec.samples[i], dtype, seed)
    theirs = spec.inputs(torch, spec.samples[i], dtype, seed)
    out_d = _outputs(spec.fn(dyngrad, *ours))
    out_t = [o for o in (spec.fn(torch, *theirs),)][0]
    out_t = (
        [o for o in out_t if isinstance(o, torch.Tensor)]
        if isinstance(out_t, (tuple, list))
        else [out_t]
    )
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == "float32" else dict(rtol=1e-7, atol=1e-9)
    for d, t in zip(out_d, out_t):
        assert d.dtype.name == str(t.dtype).replace("torch.", ""), (d.dtype, t.dtype)
        assert tuple(d.shape) == tuple(t.shape)
        np.testing.assert_allclose(_numpy(d).astype(np.float64), t.detach().double().numpy(), **tol)
        if spec.torch_names and t.grad_fn is not None:
            assert d.grad_fn is not None and d.grad_fn.name() == t.grad_fn.name()
    if not spec.grad:
        return
    pairs = [(d, t) for d, t in zip(out_d, out_t) if t.requires_grad]
    if not pairs:
        return
    rng = np.random.default_rng(seed + 1)
    seeds = [rng.standard_normal(tuple(t.shape)) for _, t in pairs]
    sum(
        ((d * dyngrad.tensor(s, dtype=d.dtype)).sum() for (d, _), s in zip(pairs, seeds)),
        dyngrad.tensor(0.0, dtype=getattr(dyngrad, dtype)),
    ).backward()
    sum(
        ((t * torch.tensor(s, dtype=t.dtype)).sum() for (_, t), s in zip(pairs, seeds)),
        torch.tensor(0.0, dtype=getattr(torch, dtype)),
    ).backward()
    for a, b in zip(ours, theirs):
        if isinstance(b, torch.Tensor) and b.requires_grad:
            if b.grad is None:
                assert a.grad is None or not np.any(a.grad.numpy())
                continue
            assert a.grad is not None
            np.testing.assert_allclose(
                a.grad.numpy().astype(np.float64), b.grad.double().numpy(), **tol
            )


def test_every_differentiable_op_has_a_spec():
    covered = {s.name for s in SPECS} | {c for s in SPECS for c in s.covers}
    missing = sorted(name for name, op in OPS.items() if op.records and name not in covered)
    assert not missing, f"ops without a spec: {missing}"
