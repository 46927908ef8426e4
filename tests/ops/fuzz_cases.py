"""The bad-input fuzz table, part one: creation ops, Python scalars, ranges.

Each generator yields expressions (see `fuzz_inputs`); `fuzz_cases_ops` holds the ops that take
tensors. The table is the cross product of each op family with the inputs PyTorch refuses or
treats specially, so a new op joins by adding one line to its family.
"""

from __future__ import annotations

import re

# Sizes: negative, huge (allocation fails in torch, so never 1e9-ish sizes that would succeed),
# past int64, non-integers, and objects torch accepts or refuses as a size.
SIZES = [
    "-1",
    "-5",
    "0",
    "2**63",
    "2**63-1",
    "-2**63-1",
    "2**64",
    "10**12",
    "2**40",
    "2.5",
    "-2.5",
    "nan",
    "inf",
    "True",
    "None",
    "'3'",
    "t.tensor(3)",
    "t.tensor(2.5)",
    "t.tensor([2, 3])",
    "t.tensor(-1)",
    "zi",
    "z",
]

FACTORIES = [
    "t.zeros({})",
    "t.ones({})",
    "t.empty({})",
    "t.rand({})",
    "t.randn({})",
    "t.full(({},), 1.5)",
    "t.full({}, 7)",
    "t.randint(5, ({},))",
    "t.randperm({})",
    "f.new_zeros({})",
    "f.new_ones(({},))",
    "f.new_empty({})",
    "f.new_full(({},), 2)",
    "t.zeros({}, dtype=t.bool)",
    "t.ones({}, dtype=t.int8)",
]

SIZE_FORMS = ["{}", "({},)", "2, {}", "[3, {}]"]

DTYPES = [
    "t.bool",
    "t.uint8",
    "t.int8",
    "t.int16",
    "t.int32",
    "t.int64",
    "t.float16",
    "t.bfloat16",
    "t.float32",
    "t.float64",
]

VALUES = [
    "0",
    "-1",
    "127",
    "255",
    "256",
    "300",
    "-129",
    "2**31",
    "2**63-1",
    "2**63",
    "2**64",
    "-2**63-1",
    "1.5",
    "-1.5",
    "1e40",
    "-1e40",
    "nan",
    "inf",
    "-inf",
    "True",
    "1+2j",
]


def creation_sizes():
    for factory in FACTORIES:
        forms = (
            ["{}"]
            if "(({},)" in factory
            else SIZE_FORMS[:2]
            if "randperm" in factory
            else SIZE_FORMS
        )
        for form in forms:
            for size in SIZES:
                yield factory.format(form.format(size))
    for size in [
        "2**32, 2**32",
        "2**31, 2**31, 4",
        "10**6, 10**6, 10**6",
        "-1, -2",
        "3, -1",
        "2**62, 4",
        "10**12, 0",
        "0, 2**63",
        "0, -1",
        "()",
        "[]",
        "(2, (3,))",
        "2, 3.0",
    ]:
        yield f"t.zeros({size})"
        yield f"t.empty({size})"
    for dtype in DTYPES:
        yield f"t.empty(10**12, dtype={dtype})"
        yield f"t.zeros(-2, dtype={dtype})"


def creation_values():
    """Python numbers that do not fit the tensor's dtype, written by creation and fills."""
    for dtype in DTYPES:
        for value in VALUES:
            yield f"t.full((2,), {value}, dtype={dtype})"
            yield f"t.tensor([{value}], dtype={dtype})"
            yield f"t.tensor({value}, dtype={dtype})"
            yield f"t.zeros(2, dtype={dtype}).fill_({value})"
            yield f"t.full_like(t.zeros(2, dtype={dtype}), {value})"
            yield f"setitem(t.zeros(3, dtype={dtype}), 1, {value})"
            yield f"setitem(t.zeros(3, dtype={dtype}), slice(0, 2), {value})"
    for value in VALUES:
        yield f"t.tensor({value})"
        yield f"t.tensor([{value}, 1])"
        yield f"t.full((2,), {value})"
        yield f"t.scalar_tensor({value})"
    for data in [
        "[[1], [1, 2]]",
        "[1, 'a']",
        "'abc'",
        "[[]]",
        "[[], []]",
        "[t.ones(2)]",
        "[t.tensor(1), t.tensor(2.5)]",
        "[None]",
        "[1, None]",
        "((1, 2), [3, 4])",
        "[True, 2]",
        "[1, 2.5, True]",
        "[2**63]",
        "[-2**63]",
        "[2**64]",
        "[1e400]",
    ]:
        yield f"t.tensor({data})"
        yield f"t.as_tensor({data})"


SCALAR_OPS = [
    "x.add({})",
    "x.add_({})",
    "x.sub_({})",
    "x.mul({})",
    "x.mul_({})",
    "x.div_({})",
    "x.masked_fill(x == 0, {})",
    "x.masked_fill_(x == 0, {})",
    "x.clamp(min={})",
    "x.clamp_(max={})",
    "x.eq({})",
    "x.lt({})",
    "x.pow({})",
    "x.remainder({})",
    "x.floor_divide({})",
    "x.index_fill(0, t.tensor([0]), {})",
    "t.where(x == 0, x, {})",
    "x.scatter(0, t.tensor([1]), {})",
    "x + {}",
    "{} - x",
    "x.new_full((2,), {})",
]


def scalar_overflow():
    """Python scalars out of the range of a tensor's dtype, in ops that take a scalar."""
    for dtype in ["bool", "uint8", "int8", "int32", "int64", "float16", "float32"]:
        for op in SCALAR_OPS:
            for value in ["300", "-1", "2**63", "1e40", "nan", "inf", "1.5", "True"]:
                yield re.sub(r"\bx\b", f"x_{dtype}", op).format(value)


RANGE_VALUES = ["0", "1", "3", "-3", "2.5", "nan", "inf", "-inf", "10**13", "2**63"]


def ranges():
    for start in RANGE_VALUES:
        yield f"t.arange({start})"
        for end in ["5", "-5", "nan", "inf", "2.5", "2**63", "10**13"]:
            for step in ["1", "-1", "0", "0.5", "nan", "inf", "1e-20"]:
                yield f"t.arange({start}, {end}, {step})"
    for dtype in ["t.uint8", "t.bool", "t.int32", "t.float16", "t.int64"]:
        for args in ["5", "-3, 3", "0, 300", "0, 1, 0.25", "3, 0, -1", "0, 2**40"]:
            yield f"t.arange({args}, dtype={dtype})"
    for fn in ["linspace", "logspace"]:
        for start, end in [
            ("0", "1"),
            ("nan", "1"),
            ("0", "nan"),
            ("inf", "1"),
            ("-inf", "inf"),
            ("1e308", "-1e308"),
            ("1", "1"),
            ("t.tensor(0.)", "t.tensor(1.)"),
            ("2**63", "0"),
            ("3", "0"),
        ]:
            for steps in ["-1", "0", "1", "3", "2.5", "10**13", "2**63", "nan", "t.tensor(3)"]:
                yield f"t.{fn}({start}, {end}, {steps})"
        for dtype in ["t.int64", "t.bool", "t.float16", "t.uint8"]:
            yield f"t.{fn}(-2, 300, 4, dtype={dtype})"
    for n in [
        "-2",
        "-1",
        "0",
        "1",
        "3",
        "2.5",
        "10**7",
        "2**63",
        "nan",
        "True",
        "t.tensor(3)",
        "None",
    ]:
        yield f"t.eye({n})"
        for m in ["-1", "0", "2", "2.5", "None", "10**7"]:
            yield f"t.eye({n}, {m})"
    for args in ["-1", "(3, -1)", "0", "(2**63,)"]:
        yield f"t.randint(0, 5, {args})"
    for lo, hi in [("5", "0"), ("0", "0"), ("2.5", "5"), ("-2**63", "2**63"), ("0", "300")]:
        yield f"t.randint({lo}, {hi}, (3,))"
        yield f"t.randint({lo}, {hi}, (3,), dtype=t.uint8)"


FAMILIES = {
    "creation_sizes": creation_sizes,
    "creation_values": creation_values,
    "scalar_overflow": scalar_overflow,
    "ranges": ranges,
}
