"""Convolutions given tensors of different dtypes: PyTorch's checks, in PyTorch's order (the
bias before the shapes for a convolution, the weight after them; oneDNN's message for a
bfloat16 input), and a transposed convolution that casts a bias of another float type."""

from __future__ import annotations

import itertools

import pytest

import dyngrad

DTYPES = ["float32", "float64", "bfloat16", "float16"]
SHAPES = {
    # name: (input, weight, bias) shapes; "bad channels" has an input with 3 channels
    "conv2d": ((1, 2, 5, 5), (3, 2, 3, 3), (3,)),
    "conv_transpose2d": ((1, 2, 5, 5), (2, 3, 3, 3), (3,)),
    "conv1d": ((1, 2, 5), (3, 2, 3), (3,)),
    "conv_transpose3d": ((1, 2, 3, 3, 3), (2, 3, 2, 2, 2), (3,)),
}
COMBOS = [
    (x, w, b)
    for x, w, b in itertools.product(DTYPES, DTYPES, DTYPES + [None])
    if len({x, w, b} - {None}) > 1 and "float16" not in (x, w)  # no float16 conv on CPU
]


def _run(lib, name, dtypes, channels=None):
    shapes = list(SHAPES[name])
    if channels is not None:
        shapes[0] = (1, channels) + shapes[0][2:]
    tensors = [
        None if d is None else lib.ones(*s, dtype=getattr(lib, d)) for s, d in zip(shapes, dtypes)
    ]
    try:
        out = getattr(lib.nn.functional, name)(*tensors)
    except RuntimeError as exc:
        return "error: " + str(exc).splitlines()[0]
    return str(out.dtype).replace("torch.", "")


def _ids(dtypes):
    return "-".join(str(d) for d in dtypes)


@pytest.mark.parametrize("name", list(SHAPES))
@pytest.mark.parametrize("dtypes", COMBOS, ids=_ids)
def test_mixed_dtypes_as_torch(name, dtypes, torch):
    assert _run(dyngrad, name, dtypes) == _run(torch, name, dtypes)


@pytest.mark.parametrize("name", ["conv2d", "conv_transpose2d"])
@pytest.mark.parametrize(
    "dtypes", [("float32", "float64", None), ("float32", "float32", "float64")], ids=_ids
)
def test_shape_and_dtype_errors_together_report_as_torch(name, dtypes, torch):
    assert _run(dyngrad, name, dtypes, channels=3) == _run(torch, name, dtypes, channels=3)


def test_dtype_error_says_how_to_fix():
    with pytest.raises(RuntimeError, match=r"(?s)expected scalar type Double.*module.to\(dtype\)"):
        dyngrad.nn.Conv2d(2, 3, 3, bias=False)(dyngrad.ones(1, 2, 5, 5, dtype=dyngrad.float64))
