"""The bad-input fuzz table, part two: ops that take tensors, crossed with bad arguments.

Inputs are the names of `fuzz_inputs.ARRAYS`: `f` float32 (2, 3), `i` int64, `b` bool, `h`
float16, `u8` uint8, `z` a 0-d tensor, `e` empty (0,), `e23` empty (2, 0, 3), `n` NaN/inf.
"""

from __future__ import annotations

TENSORS = ["f", "i", "b", "h", "z", "e", "e23"]

SIZE_ARGS = [
    "-1",
    "-2",
    "3, -1",
    "-1, -1",
    "7",
    "2.5",
    "nan",
    "0",
    "2**63",
    "10**12, 0",
    "6",
    "(3, 2)",
    "[-1]",
    "t.tensor(6)",
    "3, 2.0",
]

SHAPE_CALLS = {
    "view": SIZE_ARGS,
    "reshape": SIZE_ARGS,
    "repeat": ["2", "2, 2", "-1, 2", "0, 2", "2.5, 1", "10**6, 10**7", "1, 1, 1", "()", "2**63, 1"],
    "expand": ["-1, -1", "4, 3", "2, 3, -1", "-2, 3", "3, 2.5", "1, 3", "2, -1, 3", "()", "0, 3"],
    "permute": ["1, 0", "0, 0", "0, 2", "1", "-1, -3", "0, 1.5", "()", "2, 0, 1"],
    "transpose": ["0, 1", "0, 2", "-3, 0", "0.5, 1", "0, 0", "-1, 0"],
    "squeeze": ["", "0", "2", "-3", "0.5", "(0, 1)", "(0, 0)", "(0, 5)"],
    "unsqueeze": ["0", "2", "3", "-4", "1.5", "-1"],
    "flatten": ["", "1, 0", "0, 5", "-3", "0.5", "0, -1"],
    "narrow": [
        "0, 0, 1",
        "0, 5, 1",
        "0, -1, 2",
        "0, 0, -1",
        "3, 0, 1",
        "0, 1.5, 1",
        "0, -3, 1",
        "0, 1, 2",
    ],
    "select": ["0, 0", "0, 5", "0, -3", "5, 0", "0, 1.5", "-1, -1"],
    "split": ["1", "0", "-1", "[1, 1]", "[1, 2]", "1, 5", "1.5", "[0, 2]", "[-1, 3]"],
    "chunk": ["2", "0", "-1", "2, 5", "1.5", "3, -1"],
    "unbind": ["", "5", "-1", "1.5"],
    "flip": ["0", "5", "(0, 0)", "()", "-1"],
    "roll": ["1", "1, 5", "(1, 2), (0,)", "(1, 2), (0, 1)", "1.5", "-7, 0"],
    "tile": ["2", "-1", "(2, 2)", "()", "1.5"],
    "movedim": ["0, 1", "0, 5", "(0, 1), (1,)", "-1, 0"],
    "diagonal": ["", "1", "0, 0, 1", "0, 0, 0", "0, 0, 5", "-5"],
    "tril": ["", "1", "-10", "1.5"],
    "triu": ["", "-1", "100"],
    "t": [""],
    "unfold": ["0, 1, 1", "0, 3, 1", "0, 1, 0", "5, 1, 1", "-1, 2, 1", "0, -1, 1"],
    "unflatten": ["0, (2, 1)", "1, (3, -1)", "0, (4,)", "5, (1,)", "0, ()", "1, (-1, -1)"],
    "swapaxes": ["0, 1", "0, 4"],
    "sum_to_size": ["3", "1, 3", "(2, 1)", "4, 3", "-1"],
}


def shape_ops():
    for name, argsets in SHAPE_CALLS.items():
        for x in TENSORS:
            for args in argsets:
                yield f"{x}.{name}({args})"
    for op in ["cat", "stack", "hstack", "vstack", "column_stack"]:
        for args in [
            "[]",
            "[f, i]",
            "[f, v]",
            "[f, f], dim=2",
            "[f, f], dim=-3",
            "[f, f], 1.5",
            "[z, z]",
            "[e, f]",
            "[f, e23]",
            "[f, b]",
            "[f, h]",
            "(f, f)",
            "f",
            "[f, 1.0]",
            "[e, e]",
        ]:
            yield f"t.{op}({args})"
    for args in ["(2, 3), (3,)", "(2, 3), (2, 1)", "(-1, 3), (2, 3)", "(2,), (2.5,)", "(), ()"]:
        yield f"t.broadcast_shapes({args})"
    for pad in [
        "(1, 1)",
        "(-1, -1)",
        "(-2, -2)",
        "(-3, 0)",
        "(1,)",
        "(1, 1, 1, 1, 1, 1)",
        "(1.5, 1)",
        "(0, 0, -1, 0)",
        "(2, -3)",
        "()",
    ]:
        for x in ["f", "v", "e", "z", "i", "img"]:
            yield f"F.pad({x}, {pad})"
        for mode in ["'reflect'", "'replicate'", "'circular'", "'bogus'"]:
            yield f"F.pad(seq, {pad}, mode={mode})"
        yield f"F.pad(f, {pad}, value=nan)"
        yield f"F.pad(i, {pad}, value=1.5)"


KEYS = [
    "0",
    "5",
    "-3",
    "-2",
    "2.5",
    "True",
    "False",
    "None",
    "...",
    "(0, 0, 0)",
    "slice(None, None, -1)",
    "slice(None, None, 0)",
    "slice(5, 10)",
    "slice(-10, 1)",
    "t.tensor([5])",
    "t.tensor([0.0])",
    "t.tensor([True, False])",
    "t.tensor([[True]])",
    "[0, 5]",
    "[]",
    "t.tensor([], dtype=t.long)",
    "'a'",
    "(..., ...)",
    "t.tensor(1)",
    "t.tensor([-3])",
    "t.tensor([1], dtype=t.int32)",
    "t.tensor([1], dtype=t.uint8)",
    "[True, False]",
    "(None, 1)",
    "[[0, 1], [1, 0]]",
    "b",
    "(0, [0, 2])",
    "t.tensor(1.0)",
]


def indexing():
    for x in ["f", "i", "z", "e", "e23", "b"]:
        for key in KEYS:
            yield f"{x}[{key}]"
    for x in ["f", "i", "u8", "b", "h"]:
        for key in ["0", "5", "(0, 1)", "b", "t.tensor([0, 1])", "..."]:
            for value in [
                "nan",
                "300",
                "1e40",
                "t.ones(3)",
                "t.ones(4)",
                "t.ones(2, 3, 1)",
                "'a'",
                "True",
                "-1",
                "t.tensor(2.5)",
                "None",
            ]:
                yield f"setitem({x}, {key}, {value})"


INDEX_VARIANTS = [
    "idx",
    "t.tensor([0, 5])",
    "t.tensor([-1, 0])",
    "t.tensor([0.0, 1.0])",
    "t.tensor([0, 1], dtype=t.int32)",
    "t.tensor([], dtype=t.long)",
    "t.tensor(1)",
    "idx2",
    "t.tensor([[0, 5, 0]])",
    "b",
]


def index_ops():
    calls = [
        "t.gather(f, {d}, {i})",
        "f.scatter({d}, {i}, 1.5)",
        "f.scatter({d}, {i}, f)",
        "f.scatter_add({d}, {i}, f)",
        "t.index_select(f, {d}, {i})",
        "f.index_add({d}, {i}, f)",
        "f.index_fill({d}, {i}, -1.0)",
        "f.index_copy({d}, {i}, f)",
        "t.take(f, {i})",
        "t.take_along_dim(f, {i}, {d})",
        "i.gather({d}, {i})",
        "e23.index_select({d}, {i})",
    ]
    for call in calls:
        for index in INDEX_VARIANTS:
            for dim in ["0", "1", "2", "-3", "1.5"]:
                yield call.format(d=dim, i=index)
    for mask in [
        "b",
        "f > 0",
        "f",
        "i",
        "t.tensor([True, False])",
        "zb",
        "t.tensor(1)",
        "b.t()",
        "t.ones(2, 3, 1, dtype=t.bool)",
    ]:
        for x in ["f", "i", "b", "u8", "e23", "z"]:
            yield f"{x}.masked_fill({mask}, 1)"
            yield f"{x}.masked_fill({mask}, t.tensor(2.5))"
            yield f"{x}.masked_fill({mask}, t.tensor([1.0, 2.0]))"
            yield f"{x}.masked_select({mask})"
            yield f"t.where({mask}, {x}, 0)"
    for cond in ["b", "f", "i", "zb", "t.tensor([True])"]:
        for a, b in [("f", "i"), ("f", "v"), ("1", "2"), ("1.5", "i"), ("h", "f"), ("u8", "-1")]:
            yield f"t.where({cond}, {a}, {b})"
    for x in ["i", "f", "b", "ei", "zi", "t.tensor([-1, 2])", "t.tensor([0, 5])"]:
        for n in [
            "",
            "num_classes=3",
            "num_classes=6",
            "num_classes=-2",
            "num_classes=0",
            "num_classes=2.5",
        ]:
            yield f"F.one_hot({x}, {n})"
    for x in ["vi", "f", "i", "t.tensor([-1, 2])", "ei", "b", "zi"]:
        yield f"t.bincount({x})"
        yield f"t.bincount({x}, minlength=-1)"
        yield f"t.bincount({x}, weights=v)"
    for x in ["v", "vi", "f", "e", "z"]:
        for s in ["idx", "t.tensor([1.0, 3.0])", "z", "t.tensor([[1.0]])", "2.0"]:
            yield f"t.searchsorted({x}, {s})"
            yield f"t.bucketize({s}, {x})"


FAMILIES = {"shape": shape_ops, "indexing": indexing, "index_ops": index_ops}
