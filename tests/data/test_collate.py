"""default_collate / default_convert against PyTorch: structure, dtypes, values, errors."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import dyngrad
from dyngrad.utils.data import default_collate, default_convert

Point = collections.namedtuple("Point", "x y")


def _plain(obj):
    """A structure with every tensor replaced by (dtype name, values), for comparison."""
    if hasattr(obj, "dtype") and hasattr(obj, "tolist") and not isinstance(obj, np.ndarray):
        return ("tensor", str(obj.dtype).split(".")[-1], obj.tolist())
    if isinstance(obj, dict):
        return (type(obj).__name__, {k: _plain(v) for k, v in obj.items()})
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, [_plain(v) for v in obj])
    return obj


CASES = {
    "ints": lambda t: [1, 2, 3],
    "floats": lambda t: [1.5, 2.0],
    "bools": lambda t: [True, False],
    "strings": lambda t: ["a", "b"],
    "numpy-scalars": lambda t: [np.float32(1.0), np.float32(2.5)],
    "numpy-int32": lambda t: [np.int32(1), np.int32(2)],
    "numpy-arrays": lambda t: [np.array([1, 2], np.int32), np.array([3, 4], np.int32)],
    "tensors": lambda t: [t.ones(2, 3), t.zeros(2, 3)],
    "mixed-dtype-tensors": lambda t: [t.ones(2, dtype=t.int64), t.ones(2)],
    "tuples": lambda t: [(t.ones(2), 1), (t.zeros(2), 0)],
    "lists": lambda t: [[1.0, 2.0], [3.0, 4.0]],
    "dicts": lambda t: [
        {"x": t.ones(1), "y": [1, 2], "name": "a"},
        {"x": t.zeros(1), "y": [3, 4], "name": "b"},
    ],
    "ordered-dicts": lambda t: [collections.OrderedDict(b=1, a=2.0)] * 2,
    "namedtuples": lambda t: [Point(t.ones(2), 1), Point(t.zeros(2), 2)],
    "nested": lambda t: [{"p": Point(np.ones(2), [1, "s"])}, {"p": Point(np.zeros(2), [2, "t"])}],
}


@pytest.mark.parametrize("case", list(CASES))
def test_default_collate_matches_torch(torch, case):
    from torch.utils.data import default_collate as torch_collate

    assert _plain(default_collate(CASES[case](dyngrad))) == _plain(
        torch_collate(CASES[case](torch))
    )


def test_collate_keeps_namedtuple_type():
    batch = default_collate([Point(1, 2.0), Point(3, 4.0)])
    assert type(batch) is Point and batch.x.tolist() == [1, 3]


@pytest.mark.parametrize(
    "bad",
    [
        lambda t: [object(), object()],
        lambda t: [np.array(["a"]), np.array(["b"])],
        lambda t: [[1, 2], [1]],
        lambda t: [t.ones(2), t.ones(3)],
    ],
)
def test_default_collate_errors_match_torch(torch, bad):
    from torch.utils.data import default_collate as torch_collate

    with pytest.raises(Exception) as theirs:
        torch_collate(bad(torch))
    with pytest.raises(theirs.type) as ours:
        default_collate(bad(dyngrad))
    assert str(ours.value) == str(theirs.value)


def test_collate_of_tensors_that_require_grad_keeps_the_graph():
    w = dyngrad.ones(2, requires_grad=True)
    if not hasattr(dyngrad, "stack"):
        pytest.skip("dyngrad.stack lands with the shape ops")
    batch = default_collate([w * 2, w * 3])
    batch.sum().backward()
    assert w.grad.tolist() == [5.0, 5.0]


def test_default_convert_matches_torch(torch):
    from torch.utils.data import default_convert as torch_convert

    def sample(t):
        return (np.ones(2), [np.int64(3)], "x", {"a": np.float32(1.0)}, Point(np.zeros(1), 2))

    assert _plain(default_convert(sample(dyngrad))) == _plain(torch_convert(sample(torch)))
