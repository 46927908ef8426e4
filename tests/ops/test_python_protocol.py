"""Tensor's Python-level protocol as PyTorch's: `in`, `reversed`, `del`, `&=`/`|=`/`^=`,
`2 << t`, `apply_`/`map_`/`map2_` (Python callables per element), `nonzero_static` and the
deprecated non-inplace `resize`/`resize_as`."""

from __future__ import annotations

import warnings

import pytest

import dyngrad


def _outcome(fn):
    """(value as a NumPy array or Python object, or the exception's type name and message)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = fn()
    except Exception as exc:  # noqa: BLE001 - the error is what is compared
        return ("error", type(exc).__name__, str(exc).split("\n")[0])
    if hasattr(result, "numpy"):
        return ("tensor", str(result.dtype), result.detach().numpy().tolist())
    return ("value", result)


CASES = {
    "scalar in 2-d": lambda t: 3 in t.tensor([[1, 2], [3, 4]]),
    "scalar not in 2-d": lambda t: 5 in t.tensor([[1, 2], [3, 4]]),
    "float in int": lambda t: 2.0 in t.tensor([[1, 2], [3, 4]]),
    "bool in float": lambda t: True in t.ones(3),
    "0-d tensor in": lambda t: t.tensor(4) in t.tensor([[1, 2], [3, 4]]),
    "row tensor in": lambda t: t.tensor([1, 5]) in t.tensor([[1, 2], [3, 4]]),
    "str in": lambda t: "x" in t.ones(2),
    "list in": lambda t: [1] in t.ones(2),
    "None in": lambda t: None in t.ones(2),
    "unbroadcastable in": lambda t: t.ones(2) in t.ones(3),
    "reversed 2-d": lambda t: t.stack(list(reversed(t.tensor([[1, 2], [3, 4], [5, 6]])))),
    "reversed 0-d": lambda t: reversed(t.tensor(3.0)),
    "del item": lambda t: t.ones(2).__delitem__(0),
    "iand": lambda t: _inplace(t, lambda a: a.__iand__(6)),
    "ior bool": lambda t: _inplace(
        t, lambda a: a.__ior__(t.tensor([False, True])), t.tensor([True, False])
    ),
    "ixor tensor": lambda t: _inplace(t, lambda a: a.__ixor__(t.tensor([3, 1]))),
    "iand float": lambda t: _inplace(t, lambda a: a.__iand__(1), t.ones(2)),
    "iand float into int": lambda t: _inplace(t, lambda a: a.__iand__(t.tensor([1.5]))),
    "rlshift": lambda t: 2 << t.tensor([[1, 2], [3, 4]]),
    "rrshift": lambda t: 64 >> t.tensor([1, 2, 3]),
    "rrshift int8": lambda t: 100 >> t.tensor([1, 2], dtype=t.int8),
    "rlshift float": lambda t: 2 << t.tensor([1.0, 2.0]),
    "rlshift float number": lambda t: 2.5 << t.tensor([1, 2]),
    "bitwise_left_shift number first": lambda t: t.bitwise_left_shift(3, t.tensor([1, 2])),
    "apply_ float": lambda t: t.tensor([1.0, 2.0, 3.0]).apply_(lambda v: v * 2 + 0.1),
    "apply_ int truncates": lambda t: t.tensor([1, 2]).apply_(lambda v: v * 1.7),
    "apply_ bool": lambda t: t.tensor([True, False]).apply_(lambda v: 0.5 if v else 0),
    "apply_ int8 overflow": lambda t: t.tensor([1], dtype=t.int8).apply_(lambda v: 300),
    "apply_ uint8 wraps": lambda t: t.tensor([1, 2], dtype=t.uint8).apply_(lambda v: -v),
    "apply_ int64 overflow": lambda t: t.tensor([1]).apply_(lambda v: 2**70),
    "apply_ int32 float overflow": lambda t: t.tensor([1], dtype=t.int32).apply_(lambda v: 2.0**40),
    "apply_ float32 overflow": lambda t: t.tensor([1.0]).apply_(lambda v: 1e300),
    "apply_ returns None": lambda t: t.tensor([1.0]).apply_(lambda v: None),
    "apply_ returns complex": lambda t: t.tensor([1.0]).apply_(lambda v: 1j),
    "apply_ returns str into int": lambda t: t.tensor([1]).apply_(lambda v: "s"),
    "apply_ returns tensor": lambda t: t.tensor([1.0, 2.0]).apply_(lambda v: t.tensor(3.0)),
    "apply_ complex": lambda t: t.tensor([1 + 2j]).apply_(lambda v: v * 2),
    "apply_ float64 types": lambda t: t.tensor([0.5], dtype=t.float64).apply_(
        lambda v: float(type(v) is float)
    ),
    "apply_ requires grad": lambda t: t.ones(2, requires_grad=True).apply_(lambda v: v),
    "apply_ on transposed view": lambda t: _order_seen(t),
    "apply_ writes through view": lambda t: _through_view(t),
    "map_": lambda t: t.tensor([[1.0, 2.0], [3.0, 4.0]]).map_(t.tensor([10.0, 20.0]), max),
    "map_ other requires grad": lambda t: t.ones(1).map_(t.ones(1, requires_grad=True), max),
    "map_ dtype": lambda t: t.ones(1).map_(t.ones(1, dtype=t.float64), max),
    "map_ list": lambda t: t.ones(1).map_([1.0], max),
    "map_ expand": lambda t: t.ones(2).map_(t.ones(2, 2), max),
    "map2_": lambda t: t.tensor([1, 2]).map2_(
        t.tensor([3, 4]), t.tensor([5]), lambda a, b, c: a * b - c
    ),
    "map2_ y dtype": lambda t: t.ones(2).map2_(t.ones(2), t.ones(2, dtype=t.float64), max),
    "map2_ x not tensor": lambda t: t.ones(2).map2_(2, t.ones(2), max),
    "nonzero_static pad": lambda t: t.nonzero_static(t.tensor([0, 1, 0, 2]), size=4),
    "nonzero_static cut": lambda t: t.tensor([[0, 1], [1, 1]]).nonzero_static(
        size=2, fill_value=-5
    ),
    "nonzero_static 0-d": lambda t: t.nonzero_static(t.tensor(5), size=2),
    "nonzero_static transposed": lambda t: t.nonzero_static(t.tensor([[1, 0, 1]]).t(), size=3),
    "nonzero_static negative": lambda t: t.nonzero_static(t.ones(2), size=-1),
    "nonzero_static float size": lambda t: t.nonzero_static(t.ones(2), size=2.0),
    "nonzero_static bool fill": lambda t: t.nonzero_static(t.ones(2), size=2, fill_value=True),
    "nonzero_static list": lambda t: t.nonzero_static([1, 0], size=1),
    "resize": lambda t: t.tensor([[1.0, 2.0], [3.0, 4.0]]).t().resize(1, 4),
    "resize_as": lambda t: t.arange(6).resize_as(t.ones(3, 2)),
    "resize wrong count": lambda t: t.ones(2, 2).resize(3),
}


def _inplace(t, op, a=None):
    a = t.tensor([5, 6]) if a is None else a
    before, version = a, a._version
    out = op(a)
    return (out is before, a._version - version, a.tolist())


def _order_seen(t):
    seen = []
    t.arange(6.0).reshape(2, 3).t().apply_(lambda v: seen.append(v) or v)
    return seen


def _through_view(t):
    base = t.tensor([1.0, 2.0, 3.0])
    base[1:].apply_(lambda v: -v)
    return base


@pytest.mark.parametrize("name", list(CASES))
def test_protocol_matches_torch(name, torch):
    assert _outcome(lambda: CASES[name](dyngrad)) == _outcome(lambda: CASES[name](torch))


def test_contains_asks_any_element_not_rows():
    t = dyngrad.tensor([[1, 2], [3, 4]])
    assert 4 in t and 7 not in t
    assert dyngrad.tensor([3, 9]) in t  # broadcast, then any: 3 matches
    with pytest.raises(RuntimeError, match="only supports Tensor or scalar"):
        "a" in t  # noqa: B015


def test_inplace_bitwise_keeps_the_tensor_and_its_views():
    base = dyngrad.tensor([7, 7, 7])
    view = base[1:]
    view &= 2
    view |= 1
    view ^= 4
    assert base.tolist() == [7, ((7 & 2) | 1) ^ 4, ((7 & 2) | 1) ^ 4]
    assert base._version == 3


def test_apply_is_not_counted_as_a_version_change():
    t = dyngrad.tensor([1.0, 2.0])
    t.apply_(lambda v: v + 1)
    assert t.tolist() == [2.0, 3.0] and t._version == 0


def test_resize_records_resize_backward_and_reshapes_the_gradient():
    x = dyngrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
        r = x.resize(4)
    assert r.grad_fn.name() == "ResizeBackward" and r._base is x
    (r * dyngrad.arange(4.0)).sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0], [2.0, 3.0]]
    with pytest.warns(UserWarning):
        copied = x.t().resize(4)
    assert copied._base is None and copied.tolist() == [1.0, 3.0, 2.0, 4.0]


def test_resize_gradcheck():
    x = dyngrad.randn(2, 3, dtype=dyngrad.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert dyngrad.autograd.gradcheck(lambda a: a.t().resize(6), (x,))
        assert dyngrad.autograd.gradgradcheck(lambda a: a.resize(3, 2), (x,))


def test_nonzero_static_shape_does_not_depend_on_data():
    for data in ([0, 0, 0], [1, 1, 1], [1, 0, 1]):
        out = dyngrad.nonzero_static(dyngrad.tensor(data), size=2)
        assert out.shape == (2, 1) and out.dtype == dyngrad.int64
    assert dyngrad.tensor([0, 3]).nonzero_static(size=3).tolist() == [[1], [-1], [-1]]


def test_rlshift_shifts_the_number():
    assert (1 << dyngrad.tensor([0, 3, 5])).tolist() == [1, 8, 32]
    assert (256 >> dyngrad.tensor([1, 8])).tolist() == [128, 1]
