"""Specs for torch.fft's three kernels (c2c, r2c, c2r) through the public transforms, and for
the complex-number formulas FFT programs lean on (conj, sgn, abs, mul, div, exp, mm of
complex tensors). Complex values go in and out through view_as_complex / view_as_real, so
gradcheck sees real functions."""

from __future__ import annotations

from .spec import OpSpec, T


def _c(t, p):
    return t.view_as_complex(p)


def _r(t, z):
    return t.view_as_real(z.resolve_conj())  # (torch: a lazy conj must be resolved first)


SPECS = [
    OpSpec(
        "fft_c2c",
        lambda t, p: _r(t, t.fft.fft(_c(t, p))),
        [(T((3, 4, 2)),), (T((5, 2)),)],
    ),
    OpSpec(
        "fft_c2c_nd",
        lambda t, p: _r(t, t.fft.ifftn(_c(t, p), s=(4, 2), norm="ortho")),
        [(T((3, 4, 2)),)],
        covers=("fft_c2c",),
    ),
    OpSpec(
        "fft_c2c_of_real",
        lambda t, x: _r(t, t.fft.fft2(x, norm="forward")),
        [(T((3, 4)),), (T((2, 3, 4), nc=True),)],
        covers=("fft_c2c",),
    ),
    OpSpec(
        "fft_r2c",
        lambda t, x: _r(t, t.fft.rfft(x)),
        [(T((3, 6)),), (T((7,)),), (T((4, 3), nc=True),)],
    ),
    OpSpec(
        "fft_r2c_nd",
        lambda t, x: _r(t, t.fft.rfftn(x, s=(4, 5), norm="forward")),
        [(T((3, 6)),)],
        covers=("fft_r2c",),
    ),
    OpSpec(
        "fft_r2c_twosided",
        lambda t, x: _r(t, t.fft.ifft(x, n=6, dim=0) * 2),  # (torch: no lazy conj on top)
        [(T((4, 3)),)],
        covers=("fft_r2c", "conj"),
    ),
    OpSpec(
        "fft_r2c_hermitian",
        lambda t, x: _r(t, t.fft.ihfftn(x, norm="ortho")),
        [(T((3, 5)),)],
        covers=("fft_r2c", "fft_c2c", "conj_physical"),
    ),
    OpSpec(
        "fft_c2r",
        lambda t, p: t.fft.irfft(_c(t, p)),
        [(T((3, 4, 2)),), (T((5, 2)),)],
    ),
    OpSpec(
        "fft_c2r_odd",
        lambda t, p: t.fft.irfft(_c(t, p), n=7, norm="ortho"),
        [(T((2, 3, 2)),)],
        covers=("fft_c2r",),
    ),
    OpSpec(
        "fft_c2r_nd",
        lambda t, p: t.fft.irfftn(_c(t, p), s=(3, 6)),
        [(T((4, 4, 2)),)],
        covers=("fft_c2r",),
    ),
    OpSpec(
        "fft_c2r_hermitian",
        lambda t, p: t.fft.hfft2(_c(t, p), norm="forward"),
        [(T((3, 4, 2)),)],
        covers=("fft_c2r", "fft_c2c", "conj"),
    ),
    OpSpec("conj", lambda t, p: _r(t, t.conj(_c(t, p)) * 2), [(T((3, 2)),)]),
    OpSpec(
        "sgn_complex",
        lambda t, p: _r(t, t.sgn(_c(t, p))),
        [(T((4, 2), low=0.5, high=2.0),)],
        covers=("sgn",),
    ),
    OpSpec(
        "abs_complex",
        lambda t, p: _c(t, p).abs(),
        [(T((4, 2), low=0.5, high=2.0),)],
        covers=("abs",),
    ),
    OpSpec(
        "mul_complex",
        lambda t, p, q: _r(t, _c(t, p) * _c(t, q) * (1 - 2j)),
        [(T((3, 2)), T((3, 2)))],
        covers=("mul",),
    ),
    OpSpec(
        "div_complex",
        lambda t, p, q: _r(t, _c(t, p) / _c(t, q) + (2 + 1j) / _c(t, q)),
        [(T((3, 2)), T((3, 2), low=0.5, high=2.0))],
        covers=("div",),
    ),
    OpSpec(
        "exp_log_complex",
        lambda t, p: _r(t, _c(t, p).exp() + _c(t, p).log() + _c(t, p).sqrt()),
        [(T((3, 2), low=0.5, high=2.0),)],
        covers=("exp", "log", "sqrt"),
    ),
    OpSpec(
        "mm_complex",
        lambda t, p, q: _r(t, _c(t, p) @ _c(t, q)),
        [(T((2, 3, 2)), T((3, 4, 2)))],
        covers=("mm",),
    ),
]
