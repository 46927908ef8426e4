"""hypot, logaddexp(2), xlogy, fmax/fmin and deg2rad, rad2deg, sinc, logit, nan_to_num, sgn,
signbit beyond the op table's samples: special values, numbers, integers, in-place forms."""

from __future__ import annotations

import numpy as np
import pytest

from .oracle import same, same_grads

NAN, INF = float("nan"), float("inf")
SPECIAL = np.array([NAN, INF, -INF, 0.0, -0.0, 1.5, -2.0], np.float32)


@pytest.mark.parametrize(
    "expr",
    [
        "t.nan_to_num(s)",
        "t.nan_to_num(s, nan=1.0, posinf=2.0, neginf=-3.0)",
        "t.nan_to_num(s.double())",
        "t.nan_to_num(t.tensor([1, 2]))",
        "s.clone().nan_to_num_()",
        "t.signbit(s)",
        "t.signbit(t.tensor([-1, 0, 2]))",
        "t.sgn(s)",
        "t.xlogy(t.tensor([0.0, 1.0, 0.0, 2.0]), t.tensor([0.0, 2.0, NAN, -1.0]))",
        "t.xlogy(2, t.tensor([3.0]))",
        "t.xlogy(t.tensor([2.0]), 3)",
        "t.xlogy(t.tensor([2]), t.tensor([3]))",
        "t.tensor([2.0, 0.5]).xlogy_(t.tensor([3.0, 4.0]))",
        "t.fmax(s, s.flip(0))",
        "t.fmin(s, s.flip(0))",
        "t.fmax(t.tensor([1, 5]), t.tensor([2, 3]))",
        "t.hypot(s, s.flip(0))",
        "t.hypot(t.tensor([3]), t.tensor([4]))",
        "t.logaddexp(t.tensor([3]), t.tensor([4]))",
        "t.logaddexp(s, s.flip(0))",
        "t.logaddexp2(s, s.flip(0))",
        "t.tensor([3.0]).hypot_(t.tensor([4.0]))",
        "t.logit(t.tensor([0.0, 0.2, 1.0, 1.2, -0.1]))",
        "t.logit(t.tensor([0.0, 0.5, 1.0]), eps=1e-6)",
        "t.logit(t.tensor([1, 0]))",
        "t.tensor([0.25]).logit_()",
        "t.deg2rad(t.tensor([180]))",
        "t.rad2deg(t.tensor([1.0]).half())",
        "t.tensor([90.0]).deg2rad_()",
        "t.sinc(t.tensor([0.0, 0.5, -1.0]))",
        "t.sinc(t.tensor([1]))",
        "t.tensor([-2.0, 0.0]).sgn_()",
    ],
)
def test_special_values_and_dtypes_match_torch(torch, expr):
    with np.errstate(all="ignore"):
        same(torch, expr, s=SPECIAL)


@pytest.mark.parametrize(
    "expr",
    [
        "t.xlogy(x, y)",  # x has zeros: the gradient in x is 0 there when y <= 0
        "t.logit(y, eps=0.3)",
        "t.sinc(x)",
        "t.nan_to_num(x) * x",
        "t.fmax(x, y)",
        "t.hypot(x, y)",
        "t.logaddexp(x, y)",
    ],
)
def test_gradients_at_edges_match_torch(torch, expr):
    x = np.array([0.0, 0.0, 1.0, -2.0, 0.5], np.float64)
    y = np.array([-1.0, 0.5, 0.25, 0.8, 0.5], np.float64)
    with np.errstate(all="ignore"):
        same_grads(torch, expr, x=x, y=y)


def test_sgn_records_its_node(torch):
    same(torch, "t.sgn(x)", requires_grad=True, x=np.array([-1.0, 2.0]))
