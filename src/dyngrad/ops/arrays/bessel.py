"""Bessel functions of integer and third orders and the Airy function Ai, on float64 arrays.

# Note [Bessel function methods]
# Each function is split by the size of its argument into regions where one classical method
# is accurate to a few ulp (relative, or absolute where the function oscillates):
#   small x:     the power series (all terms of one sign for I; K and Y add the logarithmic
#                series, whose digamma weights come from harmonic numbers);
#   middle x:    I_n(x) e^-x = (1/2pi) int_0^2pi e^(-x (1 - cos t)) cos(nt) dt and
#                K_nu(x) e^x = int_0^inf e^(-x (cosh t - 1)) cosh(nu t) dt by the trapezoidal
#                rule, whose error falls exponentially in the number of nodes for these
#                analytic (and, for I, periodic) integrands;
#                J_nu, Y_nu: Miller's backward recurrence from an order far above x, normalized
#                by sum_k (nu + 2k) Gamma(nu + k) / k! J_(nu+2k)(x) = (x/2)^nu, and Neumann's
#                series Y0 = (2/pi)((log(x/2) + gamma) J0 - 2 sum_k (-1)^k J_2k / k);
#   x >= 25:     Hankel's asymptotic expansions, whose smallest term is about e^(-2x).
# Ai comes from K_1/3 (x > 0) and J_(+-1/3) (x < 0) of zeta = 2/3 |x|^(3/2), and from its
# Maclaurin series near 0. No table of fitted coefficients is needed.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "airy_ai",
    "bessel_j0",
    "bessel_j1",
    "bessel_y0",
    "bessel_y1",
    "i0e",
    "i1e",
    "k0e",
    "k1e",
    "spherical_j0",
]

_EULER = 0.57721566490153286061
_LARGE = 25.0  # Hankel's expansions from here on
_TRAPEZOID_I = 8.0  # I's power series below, its integral from here
_SERIES_I = 20.0  # Hankel's expansion for I above
_SERIES_J = 4.0  # J's and Y's power series below, Miller's recurrence above
_TRAPEZOID_STEP = 0.1
_TRAPEZOID_NODES = np.arange(0, 60) * _TRAPEZOID_STEP  # cosh t - 1 > 40 at the last node
_EPS = 1e-17
_BLOCK = 1 << 14


def _asymptotic_weights(nu, count):
    # a_k(nu) = prod_{j=1..k} (4 nu^2 - (2j - 1)^2) / (k! 8^k), by ratios
    mu = 4 * nu * nu
    out = [1.0]
    for k in range(1, count):
        out.append(out[-1] * (mu - (2 * k - 1) ** 2) / (8 * k))
    return out


def _hankel_sums(nu, x, alternate):
    """The sums of a_k(nu) / x^k over even k and over odd k, each element stopped at its
    smallest term (the series diverge). With `alternate` the terms are signed
    (-1)^floor(k/2): Hankel's P (even) and Q (odd); I's expansion is even - odd, K's even + odd."""
    weights = _asymptotic_weights(nu, 2 * int(_LARGE) + 4)
    inv = 1 / x
    even = np.ones_like(x)
    odd = np.zeros_like(x)
    power = np.ones_like(x)
    done = np.zeros(x.shape, bool)
    for k in range(1, len(weights)):
        power = power * inv
        term = weights[k] * power
        if alternate:
            term = term if k % 4 in (0, 1) else -term
        # a divergent series: stop each element at its smallest term
        done |= np.abs(term) < _EPS * np.maximum(np.abs(even), np.abs(odd))
        term = np.where(done, 0.0, term)
        if k % 2:
            odd = odd + term
        else:
            even = even + term
        if done.all():
            break
    return even, odd


def _hankel_j_y(nu, x):
    """(J_nu(x), Y_nu(x)) for x >= 25 by Hankel's expansions."""
    p, q = _hankel_sums(nu, x, alternate=True)
    phase = (nu / 2 + 0.25) * math.pi
    c, s = math.cos(phase), math.sin(phase)
    with np.errstate(invalid="ignore"):
        cos_x, sin_x = np.cos(x), np.sin(x)
    cos_chi = cos_x * c + sin_x * s  # chi = x - phase, without rounding x - phase
    sin_chi = sin_x * c - cos_x * s
    scale = np.sqrt(2 / (math.pi * x))
    return scale * (p * cos_chi - q * sin_chi), scale * (p * sin_chi + q * cos_chi)


def _i_series(nu, x):
    """I_nu(x) for nu in (0, 1) by its power series (every term has x's sign)."""
    half = x / 2
    term = half if nu else np.ones_like(x)
    total = term.copy()
    square = half * half
    for k in range(1, 200):
        term = term * square / (k * (k + nu))
        total = total + term
        if not np.any(np.abs(term) > _EPS * np.abs(total)):
            break
    return total


def _i_trapezoid(nu, a):
    """I_nu(a) e^-a for 8 <= a <= 20 as (1/2pi) int_0^2pi e^(-a (1 - cos t)) cos(nu t) dt:
    the trapezoidal rule on a periodic integrand errs by I_(64-nu)(a) / I_nu(a) < 1e-20 with
    64 nodes; the integrand is positive where it matters, so no digits cancel."""
    t = np.arange(33) * (2 * math.pi / 64)  # half the period, the rest by symmetry
    weights = np.cos(nu * t) * 2 / 64
    weights[0] /= 2
    weights[-1] /= 2
    fall = 2 * np.sin(t / 2) ** 2  # 1 - cos t without cancellation near t = 0
    out = np.empty_like(a)
    for start in range(0, a.size, _BLOCK):
        block = a[start : start + _BLOCK]
        out[start : start + _BLOCK] = np.exp(-np.multiply.outer(block, fall)) @ weights
    return out


def _scaled_i(nu, x):
    """I_nu(x) e^-|x| for nu in (0, 1)."""
    a = np.abs(x)
    out = np.empty_like(x)
    small = a < _TRAPEZOID_I
    out[small] = _i_series(nu, x[small]) * np.exp(-a[small])
    middle = (a >= _TRAPEZOID_I) & (a <= _SERIES_I)
    if middle.any():
        value = _i_trapezoid(nu, a[middle])
        out[middle] = np.copysign(value, x[middle]) if nu else value
    big = a > _SERIES_I
    ab = a[big]
    with np.errstate(divide="ignore", invalid="ignore"):
        even, odd = _hankel_sums(nu, ab, alternate=False)
        value = (even - odd) / np.sqrt(2 * math.pi * ab)  # (-1)^k a_k / x^k
    value[np.isinf(ab)] = 0.0
    out[big] = np.copysign(value, x[big]) if nu else value
    out[np.isnan(a)] = np.nan  # in no region
    return out


def i0e(x):
    """I0(x) e^-|x|."""
    return _scaled_i(0, x)


def i1e(x):
    """I1(x) e^-|x|."""
    return _scaled_i(1, x)


def _k_series(nu, x):
    """K_nu(x) for nu in (0, 1) and 0 < x < 1: I's series with the logarithmic series
    K0 = -(log(x/2) + gamma) I0 + sum_k H_k q^k / k!^2,
    K1 = 1/x + log(x/2) I1 - x/4 sum_k (psi(k+1) + psi(k+2)) q^k / (k! (k+1)!), q = x^2/4."""
    q = x * x / 4
    log_half = np.log(x / 2)
    if nu == 0:
        term = np.ones_like(x)
        total = np.zeros_like(x)
        harmonic = 0.0
        for k in range(1, 60):
            term = term * q / (k * k)
            harmonic += 1 / k
            total = total + harmonic * term
            if not np.any(harmonic * term > _EPS * total):
                break
        return total - (log_half + _EULER) * _i_series(0, x)
    term = np.ones_like(x)
    psi_sum = -2 * _EULER + 1  # psi(1) + psi(2)
    total = psi_sum * term
    for k in range(1, 60):
        term = term * q / (k * (k + 1))
        psi_sum += 1 / k + 1 / (k + 1)
        total = total + psi_sum * term
        if not np.any(np.abs(psi_sum * term) > _EPS * np.abs(total)):
            break
    return 1 / x + log_half * _i_series(1, x) - x / 4 * total


def _k_trapezoid(nu, x):
    """K_nu(x) e^x by the trapezoidal rule on its integral, for 1 <= x <= 25 (the integrand
    is even in t, so the rule on [0, inf) counts t = 0 once, halved); in blocks, so that the
    nodes-by-elements matrix stays small."""
    t = _TRAPEZOID_NODES
    weights = np.cosh(nu * t) * _TRAPEZOID_STEP
    weights[0] /= 2
    rise = 2 * np.sinh(t / 2) ** 2  # cosh t - 1 without cancellation near t = 0
    out = np.empty_like(x)
    for start in range(0, x.size, _BLOCK):
        block = x[start : start + _BLOCK]
        out[start : start + _BLOCK] = np.exp(-np.multiply.outer(block, rise)) @ weights
    return out


def scaled_k(nu, x):
    """K_nu(x) e^x for x >= 0 (nu >= 0; the series only for nu in (0, 1))."""
    out = np.full_like(x, np.nan)
    out[x == 0] = np.inf
    small = (x > 0) & (x < 1)
    if small.any():
        xs = x[small]
        out[small] = _k_series(nu, xs) * np.exp(xs)
    middle = (x >= 1) & (x <= _LARGE)
    if middle.any():
        out[middle] = _k_trapezoid(nu, x[middle])
    large = x > _LARGE
    if large.any():
        xl = x[large]
        even, odd = _hankel_sums(nu, xl, alternate=False)
        with np.errstate(invalid="ignore"):
            value = (even + odd) * np.sqrt(math.pi / (2 * xl))
        value[np.isinf(xl)] = 0.0
        out[large] = value
    return out


def k0e(x):
    """K0(x) e^x (nan below 0, inf at 0)."""
    return scaled_k(0, x)


def k1e(x):
    """K1(x) e^x (nan below 0, inf at 0)."""
    return scaled_k(1, x)


def _harmonic_j_y_series(x):
    """(J0, J1, Y0, Y1) of 0 < x < 4 by their power series, q = x^2/4:
    Y0 = 2/pi ((log(x/2) + gamma) J0 - sum_k (-1)^k H_k q^k / k!^2),
    Y1 = -2/(pi x) + 2/pi log(x/2) J1
         - x/(2 pi) sum_k (-1)^k (psi(k+1) + psi(k+2)) q^k / (k! (k+1)!)."""
    q = -x * x / 4
    t0 = np.ones_like(x)
    t1 = np.ones_like(x)
    j0, j1 = t0.copy(), t1.copy()
    harmonic, psi_sum = 0.0, 1 - 2 * _EULER
    y0_sum = np.zeros_like(x)
    y1_sum = psi_sum * t1
    for k in range(1, 40):
        t0 = t0 * q / (k * k)
        t1 = t1 * q / (k * (k + 1))
        harmonic += 1 / k
        psi_sum += 1 / k + 1 / (k + 1)
        j0 += t0
        j1 += t1
        y0_sum += harmonic * t0
        y1_sum += psi_sum * t1
    j1 *= x / 2
    log_half = np.log(x / 2)
    y0 = 2 / math.pi * ((log_half + _EULER) * j0 - y0_sum)
    y1 = -2 / (math.pi * x) + 2 / math.pi * log_half * j1 - x / (2 * math.pi) * y1_sum
    return j0, j1, y0, y1


def _miller(nu, x, with_y=False):
    """(J_nu(x), J_(nu+1)(x)) by Miller's backward recurrence J_(m-1) = 2m/x J_m - J_(m+1),
    for 1 <= x <= 25 and 0 <= nu < 1; with `with_y` (nu = 0), also Y0 and Y1 by Neumann's
    series and its derivative, Y1 = -Y0'. See Note [Bessel function methods]."""
    start = 2 * int((float(x.max()) + 60) / 2)  # even: J_start(x) is ~1e-30 of J_0
    upper = np.zeros_like(x)  # J_(m+1)
    current = np.full_like(x, 1e-280)  # J_m, unnormalized
    norm = np.zeros_like(x)  # sum (nu + 2k) Gamma(nu + k)/k! J_(nu+2k), Gamma(nu)'s factor out
    y0_sum = np.zeros_like(x)  # sum_k (-1)^k J_2k / k
    y1_sum = np.zeros_like(x)  # sum_k (-1)^k (J_(2k-1) - J_(2k+1)) / k
    weights = _normalization_weights(nu, start // 2 + 1)
    order_one = None
    for m in range(start, 0, -1):
        lower = 2 * (nu + m) / x * current - upper
        if m % 2 == 0:
            k = m // 2
            norm += weights[k] * current
            if with_y:  # current is J_2k, lower J_(2k-1), upper J_(2k+1)
                sign = -1.0 if k % 2 else 1.0
                y0_sum += sign * current / k
                y1_sum += sign * (lower - upper) / k
        if m == 1:
            order_one = current
        upper, current = current, lower
        big = np.abs(current) > 1e250  # keep every running value finite
        if big.any():
            factor = np.where(big, 1e-250, 1.0)
            upper, current, norm = upper * factor, current * factor, norm * factor
            y0_sum, y1_sum = y0_sum * factor, y1_sum * factor
            if order_one is not None:
                order_one = order_one * factor
    norm += weights[0] * current
    scale = (x / 2) ** nu / (math.gamma(nu) * norm) if nu else 1 / norm
    j_nu = current * scale
    j_next = order_one * scale
    if not with_y:
        return j_nu, j_next
    y0_sum *= scale
    y1_sum *= scale
    log_term = np.log(x / 2) + _EULER
    y0 = 2 / math.pi * (log_term * j_nu - 2 * y0_sum)
    y1 = -2 / math.pi * (j_nu / x - log_term * j_next - y1_sum)
    return j_nu, j_next, y0, y1


def _normalization_weights(nu, count):
    # (nu + 2k) Gamma(nu + k) / (k! Gamma(nu)), and 1 for k = 0 when nu = 0 (J0 + 2 sum J_2k)
    if nu == 0:
        return [1.0] + [2.0] * (count - 1)
    out, ratio = [], 1.0  # Gamma(nu + k) / (k! Gamma(nu))
    for k in range(count):
        if k:
            ratio *= (nu + k - 1) / k
        out.append((nu + 2 * k) * ratio)
    return out


def _integer_order(x):
    """(J0, J1, Y0, Y1) of |x| (Y's nan below 0, -inf at 0); J1 is made odd by the caller."""
    a = np.abs(x)
    j0, j1, y0, y1 = (np.full_like(x, np.nan) for _ in range(4))
    zero = a == 0
    j0[zero], j1[zero], y0[zero], y1[zero] = 1.0, 0.0, -np.inf, -np.inf
    for region, method in (
        ((a > 0) & (a < _SERIES_J), _harmonic_j_y_series),
        ((a >= _SERIES_J) & (a <= _LARGE), lambda v: _miller(0, v, with_y=True)),
    ):
        if region.any():
            values = method(a[region])
            for out, value in zip((j0, j1, y0, y1), values):
                out[region] = value
    large = (a > _LARGE) & ~np.isinf(a)
    if large.any():
        al = a[large]
        j0[large], y0[large] = _hankel_j_y(0, al)
        j1[large], y1[large] = _hankel_j_y(1, al)
    negative = x < 0
    y0[negative] = y1[negative] = np.nan
    return j0, j1, y0, y1


def bessel_j0(x):
    """J0(x); nan at +-inf, as PyTorch."""
    return _integer_order(x)[0]


def bessel_j1(x):
    """J1(x), odd; nan at +-inf, as PyTorch."""
    j1 = _integer_order(x)[1]
    return np.where(x < 0, -j1, j1)


def bessel_y0(x):
    """Y0(x): nan below 0 and at inf, -inf at 0."""
    return _integer_order(x)[2]


def bessel_y1(x):
    """Y1(x): nan below 0 and at inf, -inf at 0."""
    return _integer_order(x)[3]


def spherical_j0(x):
    """sin(x)/x: its Taylor polynomial below 1/2 (to 1 ulp there), 0 at +-inf."""
    with np.errstate(invalid="ignore", divide="ignore"):
        direct = np.sin(x) / x
    square = x * x
    poly = 1 / 6227020800.0
    for c in (-1 / 39916800.0, 1 / 362880.0, -1 / 5040.0, 1 / 120.0, -1 / 6.0, 1.0):
        poly = poly * square + c
    small = np.abs(x) < 0.5
    out = np.where(small, poly, direct)
    return np.where(np.isinf(x), 0.0, out)


# Ai(0) = 3^(-2/3) / Gamma(2/3) and -Ai'(0) = 3^(-1/3) / Gamma(1/3)
_AI0 = 0.35502805388781723926
_AI1 = 0.25881940379280679840
_AIRY_SERIES = 1.5  # |x| below: Ai's Maclaurin series
_AIRY_UNDERFLOW = 103.892  # PyTorch's 0 from here (Ai is subnormal)


def _airy_series(x):
    """Ai(x) = Ai(0) f(x) + Ai'(0) g(x), f = sum 3^k (1/3)_k x^3k / (3k)!,
    g = sum 3^k (2/3)_k x^(3k+1) / (3k+1)!, both by term ratios."""
    cube = x * x * x
    f_term = np.ones_like(x)
    g_term = x.copy()
    f, g = f_term.copy(), g_term.copy()
    for k in range(1, 40):
        f_term = f_term * cube / ((3 * k - 1) * (3 * k))
        g_term = g_term * cube / ((3 * k) * (3 * k + 1))
        f += f_term
        g += g_term
    return _AI0 * f - _AI1 * g


def airy_ai(x):
    """Ai(x); nan at +-inf, as PyTorch."""
    out = np.full_like(x, np.nan)
    a = np.abs(x)
    with np.errstate(over="ignore"):
        zeta = 2 / 3 * a * np.sqrt(a)
    small = a < _AIRY_SERIES
    out[small] = _airy_series(x[small])
    positive = (x >= _AIRY_SERIES) & ~np.isinf(x)
    if positive.any():
        # Ai(x) = sqrt(x / 3) / pi K_1/3(zeta), computed as its scaled form times e^-zeta
        z, xp = zeta[positive], x[positive]
        with np.errstate(under="ignore"):
            out[positive] = np.sqrt(xp / 3) / math.pi * scaled_k(1 / 3, z) * np.exp(-z)
    out[(x > _AIRY_UNDERFLOW) & (x < np.inf)] = 0.0
    negative = (x <= -_AIRY_SERIES) & ~np.isinf(zeta)
    if negative.any():
        # Ai(-x) = sqrt(x) / 3 (J_1/3(zeta) + J_-1/3(zeta)), J_-1/3 = 4/(3 zeta) J_2/3 - J_5/3
        z, an = zeta[negative], a[negative]
        third, two_thirds = np.empty_like(z), np.empty_like(z)
        mid = z <= _LARGE
        if mid.any():
            third[mid] = _miller(1 / 3, z[mid])[0]
            j23, j53 = _miller(2 / 3, z[mid])
            two_thirds[mid] = 4 / (3 * z[mid]) * j23 - j53
        if (~mid).any():
            third[~mid] = _hankel_j_y(1 / 3, z[~mid])[0]
            two_thirds[~mid] = _hankel_j_y(-1 / 3, z[~mid])[0]
        out[negative] = np.sqrt(an) / 3 * (third + two_thirds)
    return out
