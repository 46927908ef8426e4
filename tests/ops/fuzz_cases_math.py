"""The bad-input fuzz table, part three: reductions, elementwise math, nn.functional.

Inputs are the names of `fuzz_inputs.ARRAYS` (see `fuzz_cases_ops` for the short names).
"""

from __future__ import annotations

MATH_INPUTS = ["f", "i", "b", "h", "u8", "z", "zi", "e", "e23", "n", "i32", "d"]

REDUCTIONS = [
    "sum",
    "mean",
    "max",
    "min",
    "argmax",
    "argmin",
    "prod",
    "std",
    "var",
    "norm",
    "softmax",
    "log_softmax",
    "cumsum",
    "cumprod",
    "logsumexp",
    "amax",
    "amin",
    "all",
    "any",
    "median",
    "nansum",
    "nanmean",
    "count_nonzero",
    "sort",
    "argsort",
    "cummax",
    "cummin",
    "std_mean",
    "var_mean",
    "msort",
    "unique",
    "aminmax",
]

DIMS = ["", "0", "-1", "2", "-3", "1.5", "(0, 1)", "(0, 0)", "dim=None", "()"]


def reductions():
    for op in REDUCTIONS:
        for x in MATH_INPUTS:
            for dim in DIMS:
                yield f"t.{op}({x}, {dim})" if dim else f"t.{op}({x})"
    for x in ["f", "i", "b", "e", "z", "n", "h"]:
        for k in ["1", "3", "4", "0", "-1", "1.5"]:
            for dim in ["", ", 0", ", 5", ", largest=False"]:
                yield f"t.topk({x}, {k}{dim})"
            yield f"t.kthvalue({x}, {k})"
        for p in ["2", "1", "0", "inf", "-inf", "'fro'", "'nuc'", "3.5", "'bogus'"]:
            yield f"t.norm({x}, {p})"
        for extra in ["correction=0", "correction=5", "unbiased=False", "correction=-1"]:
            yield f"t.std({x}, {extra})"
            yield f"t.var({x}, 0, {extra})"
        for dtype in ["t.int64", "t.float64", "t.bool", "t.float16"]:
            yield f"t.sum({x}, dtype={dtype})"
            yield f"t.softmax({x}, 0, dtype={dtype})"
            yield f"t.cumsum({x}, 0, dtype={dtype})"
            yield f"t.mean({x}, dtype={dtype})"


UNARY = [
    "relu",
    "sigmoid",
    "exp",
    "log",
    "abs",
    "neg",
    "sqrt",
    "tanh",
    "floor",
    "ceil",
    "round",
    "trunc",
    "sign",
    "reciprocal",
    "sin",
    "exp2",
    "log1p",
    "erf",
    "bitwise_not",
    "logical_not",
    "isnan",
    "isinf",
    "frac",
    "square",
    "rsqrt",
    "sgn",
    "signbit",
    "erfinv",
    "logit",
    "expm1",
    "sinc",
    "nan_to_num",
    "deg2rad",
    "isfinite",
]

INPLACE = [
    "relu_",
    "neg_",
    "abs_",
    "sigmoid_",
    "exp_",
    "floor_",
    "sqrt_",
    "zero_",
    "clamp_",
    "round_",
    "sign_",
    "square_",
    "bitwise_not_",
    "logical_not_",
]

BINARY = [
    "add",
    "sub",
    "mul",
    "div",
    "pow",
    "floor_divide",
    "remainder",
    "fmod",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bitwise_left_shift",
    "maximum",
    "minimum",
    "atan2",
    "eq",
    "lt",
    "logical_and",
    "true_divide",
    "fmax",
    "hypot",
    "xlogy",
    "lerp",
    "isclose",
]

PAIRS = [
    ("f", "i"),
    ("i", "i"),
    ("b", "b"),
    ("i", "0"),
    ("u8", "i"),
    ("i", "zi"),
    ("f", "v"),
    ("i", "-2"),
    ("b", "True"),
    ("h", "f"),
    ("u8", "-1"),
    ("i", "1.5"),
    ("f", "e"),
    ("zi", "0"),
    ("i", "t.zeros(3, dtype=t.long)"),
    ("n", "0.0"),
    ("i32", "2**40"),
]


def elementwise():
    for op in UNARY:
        for x in MATH_INPUTS:
            yield f"t.{op}({x})"
    for op in INPLACE:
        for x in MATH_INPUTS:
            yield f"{x}.{op}()" if op != "clamp_" else f"{x}.clamp_(0.5)"
    for op in BINARY:
        for x, y in PAIRS:
            yield f"t.{op}({x}, {y})"
    for x, y in PAIRS:
        for op in ["add_", "sub_", "mul_", "div_", "pow_", "remainder_", "bitwise_and_"]:
            yield f"{x}.{op}({y})"
        for mode in ["'floor'", "'trunc'", "'bogus'", "None"]:
            yield f"t.div({x}, {y}, rounding_mode={mode})"
        yield f"{x} - {y}"
        yield f"-{x}"
        yield f"~{x}"
        yield f"{x} << {y}"
        yield f"t.add({x}, {y}, alpha=1.5)"
        yield f"t.add({x}, {y}, alpha=True)"
    for x in MATH_INPUTS:
        for lo, hi in [
            ("0", "1"),
            ("1", "0"),
            ("nan", "1"),
            ("None", "None"),
            ("0.5", "None"),
            ("None", "i"),
            ("f", "f"),
            ("300", "None"),
        ]:
            yield f"t.clamp({x}, {lo}, {hi})"


FAMILIES = {"reductions": reductions, "elementwise": elementwise}
