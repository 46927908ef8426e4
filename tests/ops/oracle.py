"""Run one expression on dyngrad and on the real torch and compare what comes out.

`same(expr, **inputs)` evaluates `expr` with `t` bound to each module and the inputs made
from NumPy arrays on each side; it checks values, dtypes, shapes and grad_fn names, or that
both raise the same exception type with the same first line. `same_grads` also compares the
gradients of the inputs that require grad.
"""

from __future__ import annotations

import numpy as np

import dyngrad


def _make(module, value, requires_grad):
    if isinstance(value, np.ndarray):
        t = module.from_numpy(value.copy())
        return t.requires_grad_(True) if requires_grad and value.dtype.kind == "f" else t
    return value


def _run(module, expr, inputs, requires_grad):
    env = {k: _make(module, v, requires_grad) for k, v in inputs.items()}
    env["t"] = module
    try:
        return env, eval(expr, {}, env), None
    except Exception as exc:  # noqa: BLE001 - the exception itself is compared
        return env, None, exc


def _first_line(exc) -> str:
    text = str(exc).strip("'\"")
    return text.splitlines()[0] if text else ""


def _flatten(out) -> list:
    if isinstance(out, (tuple, list)):
        return [x for o in out for x in _flatten(o)]
    return [out]


def _compare(ours, theirs, torch, expr, names=True):
    ours, theirs = _flatten(ours), _flatten(theirs)
    assert len(ours) == len(theirs), (expr, len(ours), len(theirs))
    for a, b in zip(ours, theirs):
        if not isinstance(b, torch.Tensor):
            assert a == b or (a != a and b != b), (expr, a, b)
            continue
        assert isinstance(a, dyngrad.Tensor), (expr, type(a))
        assert str(a.dtype) == str(b.dtype), (expr, a.dtype, b.dtype)
        assert tuple(a.shape) == tuple(b.shape), (expr, a.shape, b.shape)
        np.testing.assert_allclose(
            a.detach().numpy().astype(np.float64),
            b.detach().double().numpy(),
            rtol=1e-6,
            atol=1e-9,
            equal_nan=True,
            err_msg=expr,
        )
        if names and b.grad_fn is not None:
            assert a.grad_fn is not None, (expr, b.grad_fn.name())
            assert a.grad_fn.name() == b.grad_fn.name(), (expr, a.grad_fn.name(), b.grad_fn.name())
        elif names:
            assert a.grad_fn is None, (expr, a.grad_fn.name())


def exprs(text: str) -> list:
    """The expressions of a table of them: one or more per line, separated by `|`."""
    return [e.strip() for line in text.strip().splitlines() for e in line.split("|")]


def same(torch, expr: str, requires_grad: bool = False, names: bool = True, **inputs):
    """Assert `expr` gives the same result (or the same error) on dyngrad and torch."""
    _, ours, our_exc = _run(dyngrad, expr, inputs, requires_grad)
    _, theirs, their_exc = _run(torch, expr, inputs, requires_grad)
    if their_exc is not None:
        assert our_exc is not None, f"{expr}: torch raised {their_exc!r}, dyngrad did not"
        assert type(our_exc).__name__ == type(their_exc).__name__, (expr, our_exc, their_exc)
        assert _first_line(our_exc) == _first_line(their_exc), (expr, str(our_exc))
        return None
    if our_exc is not None:
        raise AssertionError(f"{expr}: dyngrad raised, torch did not") from our_exc
    _compare(ours, theirs, torch, expr, names)
    return ours


def same_grads(torch, expr: str, seed: int = 0, **inputs):
    """`same` with requires_grad inputs, then compare gradients of a random projection."""
    env_d, ours, exc_d = _run(dyngrad, expr, inputs, True)
    env_t, theirs, exc_t = _run(torch, expr, inputs, True)
    if exc_t is not None or exc_d is not None:
        raise AssertionError(f"{expr}: {exc_d!r} / {exc_t!r}")
    _compare(ours, theirs, torch, expr)
    pairs = [
        (a, b)
        for a, b in zip(_flatten(ours), _flatten(theirs))
        if isinstance(b, torch.Tensor) and b.requires_grad
    ]
    rng = np.random.default_rng(seed)
    total_d, total_t = 0, 0
    for a, b in pairs:
        w = rng.standard_normal(tuple(b.shape))
        total_d = total_d + (a * dyngrad.tensor(w, dtype=a.dtype)).sum()
        total_t = total_t + (b * torch.tensor(w, dtype=b.dtype)).sum()
    total_d.backward()
    total_t.backward()
    for k, b in env_t.items():
        if isinstance(b, torch.Tensor) and b.requires_grad:
            a = env_d[k]
            if b.grad is None:
                assert a.grad is None or not np.any(a.grad.numpy()), (expr, k)
                continue
            np.testing.assert_allclose(
                a.grad.numpy().astype(np.float64),
                b.grad.double().numpy(),
                rtol=1e-6,
                atol=1e-9,
                equal_nan=True,
                err_msg=f"{expr}: grad of {k}",
            )
