"""Run each op spec under `autocast("cpu")` and report the output dtypes: the policy's probe.

`python -m tests.amp.policy_probe` (needs torch) prints, per spec, how torch's autocast
treats it: `lower` (float32 inputs give the low dtype), `fp32` (low inputs give float32), or
nothing for passthrough ops; dyngrad.amp.policy's table was written from this list, and
test_autocast_policy.py checks it op by op.
"""

from __future__ import annotations

import warnings

from ..ops.specs import SPECS


def outputs(result) -> list:
    """The tensors among an op spec's result."""
    if isinstance(result, (tuple, list)):
        return [o for o in result if hasattr(o, "dtype") and hasattr(o, "grad_fn")]
    return [result]


def run_autocast(
    module, spec, sample: int, input_dtype: str, fast_dtype: str, seed: int = 0, enabled=True
):
    """(inputs, outputs) of `spec` on `module` under autocast("cpu", fast_dtype)."""
    inputs = spec.inputs(module, spec.samples[sample], input_dtype, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with module.autocast("cpu", dtype=getattr(module, fast_dtype), enabled=enabled):
            result = spec.fn(module, *inputs)
    return inputs, outputs(result)


def classify(torch, spec) -> str:
    """How torch's autocast treats `spec`'s op: 'lower', 'fp32' or 'pass'."""
    names = []
    for input_dtype in ("float32", "bfloat16"):
        try:
            _, outs = run_autocast(torch, spec, 0, input_dtype, "bfloat16")
        except Exception:  # an op without a bfloat16 kernel says nothing here
            return "pass"
        names.append(str(outs[0].dtype).replace("torch.", ""))
    return {("bfloat16", "bfloat16"): "lower", ("float32", "float32"): "fp32"}.get(
        tuple(names), "pass"
    )


if __name__ == "__main__":
    import torch

    for spec in SPECS:
        kind = classify(torch, spec)
        if kind != "pass":
            print(f"{kind:6} {spec.name}")
