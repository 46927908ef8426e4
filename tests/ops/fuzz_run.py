"""Run the bad-input fuzz table on one library and reduce each case to what a user sees first.

An outcome is `("ok", signature)` (the dtypes and shapes that came back) or the exception's class
name and its first line (see `first_line`). `python -m tests.ops.fuzz_run` records torch's
outcomes in `fuzz_expected.json`, which the test compares with when torch is not installed.
"""

from __future__ import annotations

import hashlib
import json
import re
import warnings
from pathlib import Path

import numpy as np

from . import fuzz_cases, fuzz_cases_math, fuzz_cases_nn, fuzz_cases_ops
from .fuzz_inputs import HELPERS, is_input, make

RECORD = Path(__file__).with_name("fuzz_expected.json")

# The classes torch raises for bad input (AssertionError from its Python code, as
# `F.embedding`'s); anything else (MemoryError, OverflowError, ZeroDivisionError, NumPy's
# AxisError) is a leak of the implementation, unless torch raises that very class for the case
# (OverflowError for a Python int past 2**64, ZeroDivisionError in `F.group_norm`'s Python).
TORCH_ERRORS = {
    "RuntimeError",
    "ValueError",
    "TypeError",
    "IndexError",
    "NotImplementedError",
    "AssertionError",
    "_LinAlgError",
}

# torch prefixes allocation failures with the C++ check that failed: not what a user reads
_ENFORCE = re.compile(r"^\[enforce fail at [^\]]*\] [^.]*\. ")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def families() -> dict:
    """Family name -> its cases, each an expression, in a stable order without repeats."""
    seen: set = set()
    table = {}
    for module in (fuzz_cases, fuzz_cases_ops, fuzz_cases_math, fuzz_cases_nn):
        for name, generate in module.FAMILIES.items():
            table[name] = [e for e in generate() if not (e in seen or seen.add(e))]
    return table


def first_line(exc: BaseException) -> str:
    """The first line of the message, as PyTorch users read it."""
    text = _ADDRESS.sub("0x?", _ENFORCE.sub("", str(exc).strip("'\"")))
    return text.splitlines()[0].strip() if text.strip() else ""


def _names(code) -> set:
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _names(const)
    return names


def compile_case(expr: str):
    code = compile(expr, expr, "eval")
    return code, sorted(n for n in _names(code) if is_input(n))


def run(lib, code, inputs):
    """`(result, None)` or `(None, exception)` for one case on `lib` (dyngrad or torch)."""
    env = dict(HELPERS, t=lib, F=lib.nn.functional)
    try:
        env.update((n, make(lib, n)) for n in inputs)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return eval(code, env), None
    except Exception as exc:  # noqa: BLE001 - the exception is the outcome compared
        return None, exc


def signature(value) -> str:
    """The dtypes and shapes of a result, the same text for dyngrad and torch."""
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(signature(v) for v in value) + ")"
    if hasattr(value, "dtype") and hasattr(value, "shape") and hasattr(value, "grad_fn"):
        return f"{str(value.dtype).replace('torch.', '')}{list(value.shape)}"
    if value is None or isinstance(value, (bool, int, float, complex, str)):
        return type(value).__name__
    return type(value).__name__.replace("Size", "tuple")


def outcome(result, exc) -> list:
    if exc is not None:
        return [type(exc).__name__, first_line(exc)]
    return ["ok", signature(result)]


def _digest(cases: list) -> str:
    return hashlib.sha1("\n".join(cases).encode()).hexdigest()[:16]


def record() -> None:
    """Write torch's outcome for every case to RECORD, each distinct outcome once."""
    import torch

    outcomes: dict = {}
    table = {}
    for family, cases in families().items():
        ids = []
        for expr in cases:
            torch.manual_seed(0)
            key = json.dumps(outcome(*run(torch, *compile_case(expr))))
            ids.append(outcomes.setdefault(key, len(outcomes)))
        table[family] = {"digest": _digest(cases), "cases": ids}
    lines = ",\n".join(f"  {k}" for k in outcomes)
    families_text = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in table.items())
    RECORD.write_text(
        f'{{"torch": {json.dumps(torch.__version__)},\n"outcomes": [\n{lines}\n],\n'
        f'"families": {{\n{families_text}\n}}}}\n'
    )
    print(
        f"{sum(len(v['cases']) for v in table.values())} cases, {len(outcomes)} distinct "
        f"outcomes, from torch {torch.__version__} -> {RECORD}"
    )


def load_record() -> dict:
    """Case -> torch's recorded outcome, for the families whose table has not changed."""
    if not RECORD.exists():
        return {}
    data = json.loads(RECORD.read_text())
    expected = {}
    for family, cases in families().items():
        entry = data["families"].get(family)
        if entry and entry["digest"] == _digest(cases):
            expected.update((e, data["outcomes"][i]) for e, i in zip(cases, entry["cases"]))
    return expected


# ops whose values are random or uninitialised: only their dtypes and shapes are compared
_RANDOM = ("rand", "dropout", "empty", "normal", "bernoulli", "multinomial", "gumbel")


def is_random(expr: str) -> bool:
    return any(word in expr for word in _RANDOM)


def _as_numpy(x) -> np.ndarray:
    x = x.detach()
    if "bfloat16" in str(x.dtype) or "float16" in str(x.dtype):
        x = x.float()
    return np.asarray(x.numpy())


def same_values(ours, theirs, random: bool) -> str | None:
    """None when dyngrad's result has torch's values, else what differs."""
    if isinstance(theirs, (tuple, list)):
        if not isinstance(ours, (tuple, list)) or len(ours) != len(theirs):
            return f"{ours!r} vs {theirs!r}"
        diffs = [same_values(a, b, random) for a, b in zip(ours, theirs)]
        return next((d for d in diffs if d), None)
    if hasattr(theirs, "grad_fn"):
        if random:
            return None
        try:
            a, b = _as_numpy(ours), _as_numpy(theirs)
        except Exception as exc:  # noqa: BLE001 - a result that cannot be read is a difference
            return f"unreadable result: {exc!r}"
        tol = {"float16": 1e-3, "bfloat16": 1e-2}.get(str(theirs.dtype).replace("torch.", ""), 1e-5)
        if a.shape != b.shape or not np.allclose(a, b, rtol=tol, atol=tol, equal_nan=True):
            return f"values {a.tolist()} vs {b.tolist()}"
        return None
    if random or ours == theirs or (ours != ours and theirs != theirs):
        return None
    return f"{ours!r} vs {theirs!r}"


if __name__ == "__main__":
    record()
