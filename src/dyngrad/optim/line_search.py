"""The strong Wolfe line search of L-BFGS and its cubic interpolation (PyTorch's, from minFunc)."""

from __future__ import annotations

import numpy as np

__all__ = ["cubic_interpolate", "strong_wolfe"]

# Scalars follow Note [LBFGS scalars] (in lbfgs.py): losses are Python floats, slopes are
# NumPy scalars of the parameters' dtype, step lengths are either.


def cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimizer of the cubic through (x1, f1) and (x2, f2) with slopes g1 and g2,
    clamped to `bounds` (by default [x1, x2]); the middle of the bounds when it has none."""
    if bounds is not None:
        xmin_bound, xmax_bound = bounds
    else:
        xmin_bound, xmax_bound = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1**2 - g1 * g2
    if d2_square >= 0:
        d2 = np.sqrt(d2_square)
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, xmin_bound), xmax_bound)
    return (xmin_bound + xmax_bound) / 2.0


class _Search:
    """The objective along `d` from `x`, the Wolfe tests, and how often it was evaluated."""

    def __init__(self, obj_func, x, d, f, gtd, c1, c2) -> None:
        self.obj_func, self.x, self.d = obj_func, x, d
        self.f, self.gtd, self.c1, self.c2 = f, gtd, c1, c2
        self.evals = 0

    def evaluate(self, t) -> tuple:
        f_new, g_new = self.obj_func(self.x, t, self.d)
        self.evals += 1
        return f_new, g_new, g_new.dot(self.d)

    def armijo_fails(self, t, f_new) -> bool:
        """Not enough decrease for a step of `t` (the first Wolfe condition fails)."""
        return f_new > (self.f + self.c1 * t * self.gtd)

    def curvature_holds(self, gtd_new) -> bool:
        """The slope flattened enough (the strong second Wolfe condition)."""
        return abs(gtd_new) <= -self.c2 * self.gtd


class _Bracket:
    """One or two trial points (step, loss, gradient, slope) and which is the lower."""

    def __init__(self, t: list, f: list, g: list, gtd: list | None) -> None:
        self.t, self.f, self.g, self.gtd = t, f, g, gtd
        self.order()

    def order(self) -> None:
        self.low, self.high = (0, 1) if self.f[0] <= self.f[-1] else (1, 0)

    def set(self, i: int, t, f, g, gtd) -> None:
        self.t[i], self.f[i], self.g[i], self.gtd[i] = t, f, g, gtd

    def point(self, i: int) -> tuple:
        return self.t[i], self.f[i], self.g[i], self.gtd[i]


def strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """PyTorch's `_strong_wolfe`: a step length along `d` satisfying the strong Wolfe
    conditions, or the best one found in `max_ls` evaluations.

    Returns (loss, flat gradient, step length, number of evaluations).
    """
    d_norm = np.abs(d).max()
    search = _Search(obj_func, x, d, f, gtd, c1, c2)
    bracket, done = _bracket_phase(search, t, g, max_ls)
    if not done:
        _zoom_phase(search, bracket, max_ls, d_norm, tolerance_change)
    low = bracket.low
    return bracket.f[low], bracket.g[low], bracket.t[low], search.evals


def _bracket_phase(search: _Search, t, g, max_ls: int) -> tuple:
    """Grow the step until an interval holds a Wolfe point; (bracket, found the point)."""
    f_new, g_new, gtd_new = search.evaluate(t)
    t_prev, f_prev, g_prev, gtd_prev = 0, search.f, g, search.gtd
    ls_iter = 0
    while ls_iter < max_ls:
        rising = search.armijo_fails(t, f_new) or (ls_iter > 1 and f_new >= f_prev)
        if not rising and search.curvature_holds(gtd_new):
            return _Bracket([t], [f_new], [g_new], [gtd_new]), True
        if rising or gtd_new >= 0:
            pair = _Bracket([t_prev, t], [f_prev, f_new], [g_prev, g_new], [gtd_prev, gtd_new])
            return pair, False
        # extrapolate: a step between 1.01 and 10 times the last one
        bounds = (t + 0.01 * (t - t_prev), t * 10)
        next_t = cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=bounds)
        t_prev, f_prev, g_prev, gtd_prev = t, f_new, g_new, gtd_new
        t = next_t
        f_new, g_new, gtd_new = search.evaluate(t)
        ls_iter += 1
    return _Bracket([0, t], [search.f, f_new], [g, g_new], None), False


def _zoom_phase(search: _Search, bracket: _Bracket, max_ls: int, d_norm, tolerance_change):
    """Shrink the bracket until its low point satisfies the strong Wolfe conditions."""
    insuf_progress = False
    done = False
    # each evaluation after the first is one line-search iteration
    while not done and search.evals - 1 < max_ls:
        if abs(bracket.t[1] - bracket.t[0]) * d_norm < tolerance_change:
            break
        t, insuf_progress = _trial_step(bracket, insuf_progress)
        f_new, g_new, gtd_new = search.evaluate(t)
        low, high = bracket.low, bracket.high
        if search.armijo_fails(t, f_new) or f_new >= bracket.f[low]:
            bracket.set(high, t, f_new, g_new, gtd_new)
            bracket.order()
            continue
        if search.curvature_holds(gtd_new):
            done = True
        elif gtd_new * (bracket.t[high] - bracket.t[low]) >= 0:
            bracket.set(high, *bracket.point(low))  # the old low becomes the high end
        bracket.set(low, t, f_new, g_new, gtd_new)


def _trial_step(bracket: _Bracket, insuf_progress: bool) -> tuple:
    """The next step to try inside the bracket, kept a tenth of its width from either end
    when the last try also fell near an end; (step, progress was insufficient)."""
    t = cubic_interpolate(
        bracket.t[0], bracket.f[0], bracket.gtd[0], bracket.t[1], bracket.f[1], bracket.gtd[1]
    )
    top, bottom = max(bracket.t), min(bracket.t)
    eps = 0.1 * (top - bottom)
    if not min(top - t, t - bottom) < eps:  # (a nan step is tried as it is)
        return t, False
    if insuf_progress or t >= top or t <= bottom:
        return (top - eps if abs(t - top) < abs(t - bottom) else bottom + eps), False
    return t, True
