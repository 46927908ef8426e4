"""torch.fft against torch: values and dtypes, the nodes each transform records (n=/s= trims
and pads included), gradients of real and complex inputs, gradcheck, errors, the frequency
and shift helpers, out=, and the complex-number ops FFT programs use on the spectra."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

from .oracle import exprs

RNG = np.random.default_rng(11)
ENV = {
    "x": RNG.standard_normal((4, 6)),
    "v": RNG.standard_normal(7),
    "w": RNG.standard_normal((2, 3, 5)),
    "z": RNG.standard_normal((4, 6)) + 1j * RNG.standard_normal((4, 6)),
    "u": RNG.standard_normal((3, 4)) + 1j * RNG.standard_normal((3, 4)),
    "i": np.arange(6),
    "s": RNG.standard_normal((2, 40)),
    "h": np.hanning(16) + 0.1,
}


def _make(lib, value, requires_grad, dtype):
    if not isinstance(value, np.ndarray):
        return value
    t = lib.from_numpy(value.copy())
    if value.dtype.kind == "f" and dtype == "float32":
        t = t.float()
    elif value.dtype.kind == "c" and dtype == "float32":
        t = t.to(lib.complex64)
    if requires_grad and value.dtype.kind in "fc":
        t.requires_grad_(True)
    return t


def _run(lib, expr, requires_grad=False, dtype="float64"):
    env = {k: _make(lib, v, requires_grad, dtype) for k, v in ENV.items()}
    env["t"] = lib
    try:
        return env, eval(expr, {}, env), None
    except Exception as exc:  # noqa: BLE001 - the exception itself is compared
        return env, None, exc


def _chain(t) -> list:
    names, node = [], t.grad_fn
    while node is not None:
        names.append(node.name())
        node = next((n for n, _ in node.next_functions if n is not None), None)
    return names


def _array(t):
    return t.detach().resolve_conj().numpy(force=True)  # (force: torch's zero tensors)


def _loss(lib, y, seed):
    # a random real projection of the output (of its real and imaginary parts)
    rng = np.random.default_rng(seed)
    if y.is_complex():
        w = lib.tensor(rng.standard_normal((*y.shape, 2)), dtype=y.real.dtype)
        return (lib.view_as_real(y.resolve_conj()) * w).sum()
    return (y * lib.tensor(rng.standard_normal(tuple(y.shape)), dtype=y.dtype)).sum()


def _same(torch, expr, dtype="float64", grads=True):
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == "float32" else dict(rtol=1e-7, atol=1e-9)
    env_d, ours, exc_d = _run(dyngrad, expr, grads, dtype)
    env_t, theirs, exc_t = _run(torch, expr, grads, dtype)
    if exc_t is not None:
        assert exc_d is not None, f"{expr}: torch raised {exc_t!r}, dyngrad did not"
        assert type(exc_d).__name__ == type(exc_t).__name__, (expr, exc_d, exc_t)
        assert str(exc_d).splitlines()[0] == str(exc_t).splitlines()[0], (expr, str(exc_d))
        return
    if exc_d is not None:
        raise AssertionError(f"{expr}: dyngrad raised, torch did not") from exc_d
    assert str(ours.dtype) == str(theirs.dtype), (expr, ours.dtype, theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape), (expr, ours.shape, theirs.shape)
    np.testing.assert_allclose(_array(ours), _array(theirs), err_msg=expr, **tol)
    assert _chain(ours) == _chain(theirs), expr
    if not (grads and theirs.requires_grad):
        return
    _loss(dyngrad, ours, 0).backward()
    _loss(torch, theirs, 0).backward()
    for k, b in env_t.items():
        if isinstance(b, torch.Tensor) and b.requires_grad:
            a = env_d[k]
            if b.grad is None:
                assert a.grad is None, (expr, k)
                continue
            assert a.grad.dtype == getattr(dyngrad, str(b.grad.dtype).replace("torch.", ""))
            np.testing.assert_allclose(_array(a.grad), _array(b.grad), err_msg=k, **tol)


ONE_DIM = """t.fft.fft(x) | t.fft.fft(z) | t.fft.fft(x, n=8) | t.fft.fft(x, n=3) | t.fft.fft(z, 9, 0)
t.fft.fft(z, n=3) | t.fft.ifft(x) | t.fft.ifft(z) | t.fft.ifft(z, n=5, norm="forward")
t.fft.rfft(x) | t.fft.rfft(x, n=9) | t.fft.rfft(x, n=3) | t.fft.rfft(v) | t.fft.rfft(w, dim=1)
t.fft.irfft(z) | t.fft.irfft(x) | t.fft.irfft(z, n=4) | t.fft.irfft(z, n=20) | t.fft.irfft(z, 11)
t.fft.irfft(z, n=1) | t.fft.irfft(u, dim=0, norm="ortho") | t.fft.hfft(z) | t.fft.hfft(x)
t.fft.hfft(z, n=4) | t.fft.hfft(z, n=9, dim=0, norm="forward") | t.fft.ihfft(x) | t.fft.ihfft(v)
t.fft.ihfft(x, n=8) | t.fft.ihfft(w, dim=1, norm="ortho") | t.fft.fft(i) | t.fft.rfft(i)
t.fft.fft(z, norm="ortho") | t.fft.rfft(x, norm="forward") | t.fft.ifft(x, norm="backward")
t.fft.fft(x.t()) | t.fft.fft(z[:, ::2]) | t.fft.irfft(z[:, 1:5]) | t.fft.rfft(w.transpose(0, 2))"""

N_DIM = """t.fft.fft2(x) | t.fft.fft2(z) | t.fft.fft2(x, s=(5, 3)) | t.fft.ifft2(z, norm="ortho")
t.fft.ifft2(x) | t.fft.rfft2(x) | t.fft.rfft2(w) | t.fft.irfft2(z) | t.fft.irfft2(z, s=(3, 5))
t.fft.hfft2(z) | t.fft.ihfft2(x) | t.fft.fftn(z) | t.fft.fftn(w, s=(4, -1, 3)) | t.fft.ifftn(x)
t.fft.rfftn(x) | t.fft.rfftn(w, dim=(2, 0)) | t.fft.rfftn(w, s=(4, 4)) | t.fft.irfftn(z)
t.fft.irfftn(t.fft.rfftn(w), s=(3, 5), dim=(1, 2)) | t.fft.irfftn(z, s=(4, -1)) | t.fft.hfftn(z)
t.fft.hfftn(z, s=(3, 7)) | t.fft.hfftn(u, dim=0) | t.fft.ihfftn(x) | t.fft.ihfftn(w, norm="forward")
t.fft.ihfftn(w, dim=(1,)) | t.fft.fftn(z, dim=0) | t.fft.fftn(x, dim=(-1, 0), norm="forward")
t.fft.ifftn(z, s=2) | t.fft.rfft2(x, norm="ortho") | t.fft.irfft2(z, norm="forward")"""

HELPERS = """t.fft.fftshift(x) | t.fft.ifftshift(w) | t.fft.fftshift(x, dim=1) | t.fft.ifftshift(w, dim=(0, -1))
t.fft.fftshift(z) | t.fft.fftshift(v) | t.fft.ifftshift(v) | t.fft.fftshift(x, 0)
t.fft.fftfreq(5) | t.fft.fftfreq(6, d=0.5, dtype=t.float64) | t.fft.rfftfreq(7, 2.0)
t.fft.rfftfreq(8, 0.1) | t.fft.fftfreq(0) | t.fft.rfftfreq(0) | t.fft.rfftfreq(-3) | t.fft.fftfreq(4, d=0)
t.fft.fftfreq(4, requires_grad=True) | t.fft.rfftfreq(5, dtype=t.float64, requires_grad=True)"""

# what programs do with a spectrum: losses on its magnitude, phase, parts; filters; round trips
PROGRAMS = """t.fft.rfft(x).abs() | t.fft.fft(z).abs() ** 2 | t.fft.rfft(x).real | t.fft.fft(x).imag
t.fft.rfft(x).angle() | t.fft.rfft(x)[:, ::2].real | t.fft.fft(z).t().imag
t.fft.irfft(t.fft.rfft(x), n=6) | t.fft.irfft(t.fft.rfft(x) * (1 + 1j), n=6)
t.fft.irfft(t.fft.rfft(x) * t.fft.rfft(x.flip(-1)), n=6) | t.fft.ifft(t.fft.fft(z) / (2 - 1j))
t.fft.rfft(x).abs().log1p() | (t.fft.rfft2(w) * t.fft.rfft2(w).conj()).real
t.fft.fftshift(t.fft.fft2(x).abs(), dim=(-2, -1)) | t.fft.rfft(x, norm="ortho").abs().sum()
(t.fft.rfft(x) * t.exp(1j * t.fft.rfftfreq(6, dtype=t.float64))).real
t.fft.irfft(t.polar(t.fft.rfft(x).abs(), t.fft.rfft(x).angle()), n=6)"""

ERRORS = """t.fft.fft(x, n=0) | t.fft.fft(x, dim=5) | t.fft.fft(x, norm="bad") | t.fft.rfft(z)
t.fft.ihfft(z) | t.fft.rfft2(z) | t.fft.ihfftn(z) | t.fft.fftn(x, s=(2, 3), dim=(0,))
t.fft.fftn(x, dim=(0, 0)) | t.fft.fftn(x, s=(2, 3, 4)) | t.fft.irfft(z[:, :1]) | t.fft.irfft(z[:, :0])
t.fft.fft(t.tensor(1.0)) | t.fft.rfftn(x, dim=()) | t.fft.irfftn(z, dim=()) | t.fft.fft(x.half())
t.fft.rfft(x.bfloat16()) | t.fft.fftfreq(-1) | t.fft.rfftfreq(-5) | t.fft.fftfreq(4, dtype=t.int64)
t.fft.fftfreq(3, dtype=t.complex64) | t.fft.fftshift(x, dim=3) | t.fft.fft2(v) | t.fft.fftn(x, s=(0, 3))
t.fft.irfftn(z, s=(3, 0)) | t.fft.irfft(z, n=0) | t.fft.hfftn(z, s=(2, 3, 4)) | t.fft.fft([1.0, 2.0])
t.fft.rfft2(3) | t.fft.fftshift([1, 2]) | t.fft.ihfftn(x.tolist())"""


STFT = """t.stft(s, 16, hop_length=4, window=h, return_complex=True) | t.stft(s[0], 16, window=h)
t.stft(s, 16, 5, window=h, center=False, return_complex=True) | s.stft(12, 3, window=h[:12])
t.stft(s, 16, window=h, onesided=False, normalized=True, return_complex=True)
t.stft(s, 16, win_length=10, window=h[:10], return_complex=True) | t.stft(s * 1j, 16, window=h)
t.stft(s, 16, window=h, pad_mode="constant", return_complex=True) | t.stft(s, 16, window=h * 1j)
t.stft(s, 8, window=h[:8], pad_mode="replicate", return_complex=False).pow(2).sum(-1)
t.stft(s[:, 3:], 8, hop_length=3, window=h[:8], center=False, return_complex=True).abs()
t.stft(s, 16, window=h) | t.stft(s, 100, window=h, return_complex=True) | t.stft(s[0], 0, window=h)
t.stft(s, 16, hop_length=0, window=h, return_complex=True) | t.stft(s, 16, win_length=20)
t.stft(s, 16, window=h[:5], return_complex=True) | t.stft(s.view(1, 2, 40), 16, window=h)
t.stft(s * 1j, 16, window=h, onesided=True) | t.stft(s[0], 50, center=False, return_complex=True)"""


_S = "t.stft(s, 16, 4, window=h, return_complex=True{})"
ISTFT = f"""t.istft({_S.format("")}, 16, 4, window=h) | t.istft({_S.format("")}, 16, 4, window=h, length=30)
t.istft({_S.format("")}.detach(), 16, 4, window=h, length=60)
t.istft({_S.format(", center=False")}, 16, 4, window=h, center=False)
t.istft({_S.format(", onesided=False")}, 16, 4, window=h)
t.istft({_S.format(", normalized=True")}, 16, 4, window=h, normalized=True)
t.istft(t.stft(s * 1j, 16, 4, window=h), 16, 4, window=h, return_complex=True)
t.istft(t.stft(s[0], 16, 4, 12, h[:12], return_complex=True), 16, 4, 12, h[:12])
t.istft(s, 16) | t.istft({_S.format("")}[:, :, :0], 16) | t.istft({_S.format("")}[0, 0], 16)
t.istft({_S.format("")}, 20) | t.istft({_S.format("")}, 16, onesided=False)
t.istft({_S.format("")}, 16, hop_length=20) | t.istft({_S.format("")}, 16, win_length=20)
t.istft({_S.format("")}, 16, window=h[:5]) | t.istft({_S.format("")}, 16, window=h * 0)
t.istft({_S.format("")}, 16, window=h, return_complex=True)
t.istft({_S.format("")}, 16, window=h * 1j)"""


@pytest.mark.parametrize("expr", exprs(ISTFT))
def test_istft_matches_torch(torch, expr):
    _same(torch, expr)


def test_istft_inverts_stft(lib):
    x = lib.randn(2, 64, dtype=lib.float64)
    window = lib.hann_window(16, dtype=lib.float64)
    spectrum = lib.stft(x, 16, 4, window=window, return_complex=True)
    assert lib.allclose(lib.istft(spectrum, 16, 4, window=window, length=64), x)


def test_istft_passes_gradcheck_and_gradgradcheck(lib):
    x = lib.randn(2, 20, dtype=lib.float64)
    window = lib.hann_window(8, dtype=lib.float64)
    spectrum = lib.stft(x, 8, 2, window=window, return_complex=True).requires_grad_()

    def fn(spectrum, window):
        return lib.istft(spectrum, 8, 2, window=window, length=20)

    assert lib.autograd.gradcheck(fn, (spectrum, window.requires_grad_()))
    assert lib.autograd.gradgradcheck(fn, (spectrum, window))


@pytest.mark.parametrize("expr", exprs(STFT))
def test_stft_matches_torch(torch, expr):
    _same(torch, expr)


def test_stft_without_a_window_warns_as_torch(lib):
    x = lib.randn(2, 40, dtype=lib.float64, requires_grad=True)
    lib.set_warn_always(True)  # (a warning PyTorch gives once per process)
    try:
        with pytest.warns(UserWarning, match="^A window was not provided"):
            y = lib.stft(x, 16, return_complex=True)
        with pytest.warns(UserWarning, match="^stft with return_complex=False is deprecated"):
            lib.stft(x, 16, window=lib.ones(16, dtype=lib.float64), return_complex=False)
    finally:
        lib.set_warn_always(False)
    assert _chain(y)[:3] == ["TransposeBackward1", "FftR2CBackward0", "AsStridedBackward0"]


def test_stft_passes_gradcheck_and_gradgradcheck(lib):
    x = lib.randn(2, 20, dtype=lib.float64, requires_grad=True)
    window = lib.hann_window(8, dtype=lib.float64).requires_grad_()

    def fn(x, window):
        return lib.stft(x, 8, hop_length=3, window=window, return_complex=True)

    assert lib.autograd.gradcheck(fn, (x, window))
    assert lib.autograd.gradgradcheck(fn, (x, window))


@pytest.mark.parametrize("expr", exprs(ONE_DIM))
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_one_dimensional_transforms_match_torch(torch, expr, dtype):
    _same(torch, expr, dtype)


@pytest.mark.parametrize("expr", exprs(N_DIM))
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_n_dimensional_transforms_match_torch(torch, expr, dtype):
    _same(torch, expr, dtype)


@pytest.mark.parametrize("expr", exprs(HELPERS))
def test_frequencies_and_shifts_match_torch(torch, expr):
    _same(torch, expr)


@pytest.mark.parametrize("expr", exprs(PROGRAMS))
def test_spectrum_losses_match_torch(torch, expr):
    _same(torch, expr)


@pytest.mark.parametrize("expr", exprs(ERRORS))
def test_errors_match_torch(torch, expr):
    _same(torch, expr, grads=False)


def test_rfft_nodes_name_the_trim_and_the_pad(lib):
    x = lib.randn(4, 6, dtype=lib.float64, requires_grad=True)
    assert _chain(lib.fft.rfft(x, n=8))[:2] == ["FftR2CBackward0", "ConstantPadNdBackward0"]
    assert _chain(lib.fft.rfft(x, n=3))[:2] == ["FftR2CBackward0", "SliceBackward0"]
    assert _chain(lib.fft.ifft(x))[:2] == ["ConjBackward0", "FftR2CBackward0"]
    assert _chain(lib.fft.irfft(x))[:2] == ["FftC2RBackward0", "ToCopyBackward0"]


def test_spectrum_magnitude_loss_backward(lib):
    x = lib.tensor([[0.5, -1.0, 2.0, 0.25, 1.5]], dtype=lib.float64, requires_grad=True)
    lib.fft.rfft(x).abs().sum().backward()
    assert x.grad.shape == x.shape
    assert lib.isfinite(x.grad).all()


def test_irfft_inverts_rfft(lib):
    x = lib.randn(3, 10, dtype=lib.float64)
    for n in (10, 9):
        y = x[:, :n]
        assert lib.allclose(lib.fft.irfft(lib.fft.rfft(y), n=n), y)
    assert lib.allclose(lib.fft.ifftn(lib.fft.fftn(x)).real, x)
    assert lib.allclose(lib.fft.ihfft(lib.fft.hfft(lib.fft.ihfft(x))), lib.fft.ihfft(x))


def test_dtypes_follow_the_input_precision(lib):
    assert lib.fft.rfft(lib.ones(4)).dtype == lib.complex64
    assert lib.fft.fft(lib.ones(4, dtype=lib.float64)).dtype == lib.complex128
    assert lib.fft.irfft(lib.ones(4, dtype=lib.complex64)).dtype == lib.float32
    assert lib.fft.fft(lib.arange(4)).dtype == lib.complex64
    assert lib.fft.fftfreq(4).dtype == lib.float32


TRANSFORMS = [
    ("fft", True, {"n": 7}),
    ("ifft", True, {"norm": "ortho"}),
    ("fft", False, {"n": 4, "dim": 0}),
    ("ifft", False, {"norm": "forward"}),
    ("rfft", False, {"n": 7}),
    ("irfft", True, {"n": 7}),
    ("hfft", True, {"norm": "ortho"}),
    ("ihfft", False, {"n": 4}),
    ("fft2", True, {"s": (3, 5)}),
    ("ifft2", False, {}),
    ("rfft2", False, {"norm": "forward"}),
    ("irfft2", True, {"s": (4, 5)}),
    ("hfft2", True, {}),
    ("ihfft2", False, {"s": (4, 4)}),
    ("fftn", True, {"dim": (0,)}),
    ("rfftn", False, {}),
    ("irfftn", True, {"norm": "ortho"}),
    ("hfftn", True, {"s": (2, 5)}),
    ("ihfftn", False, {}),
]


@pytest.mark.parametrize("name,complex_input,kwargs", TRANSFORMS)
def test_transform_passes_gradcheck_and_gradgradcheck(lib, name, complex_input, kwargs):
    # complex128 inputs and outputs: gradcheck checks the real function of their real and
    # imaginary parts, as PyTorch's does
    transform = getattr(lib.fft, name)
    dtype = lib.complex128 if complex_input else lib.float64
    x = lib.randn(3, 4, dtype=dtype, requires_grad=True)
    assert lib.autograd.gradcheck(lambda x: transform(x, **kwargs), (x,))
    assert lib.autograd.gradgradcheck(lambda x: transform(x, **kwargs), (x,))


def test_out_writes_and_refuses_inputs_that_require_grad(lib):
    x = lib.randn(4, 6, dtype=lib.float64)
    out = lib.empty(0, dtype=lib.complex128)
    assert lib.fft.rfft(x, out=out) is out
    assert lib.allclose(out, lib.fft.rfft(x))
    freq = lib.empty(5)
    lib.fft.fftfreq(5, out=freq)
    assert lib.allclose(freq, lib.fft.fftfreq(5))
    cases = [
        (lambda o: lib.fft.fft(x.requires_grad_(), out=o), "_fft_r2c"),
        (lambda o: lib.fft.fftn(x.to(lib.complex128).requires_grad_(), out=o), "_fft_c2c"),
        (lambda o: lib.fft.irfft(x.to(lib.complex128).requires_grad_(), out=o.real), "_fft_c2r"),
    ]
    for call, kernel in cases:
        x = x.detach()
        with pytest.raises(RuntimeError, match=f"^{kernel}\\(\\): functions with out="):
            call(lib.empty(0, dtype=lib.complex128))


# ---- the complex-number fixes FFT programs rely on -------------------------------------------


def test_complex_scalar_product_magnitude_passes_gradcheck(lib):
    a = lib.tensor([0.5, -1.5, 2.0], dtype=lib.float64, requires_grad=True)
    fn = lambda a: (a.to(lib.complex128) * (1 + 1j)).abs()  # noqa: E731
    assert lib.autograd.gradcheck(fn, (a,))
    fn(a).sum().backward()
    assert lib.allclose(a.grad, lib.full((3,), 2**0.5, dtype=lib.float64) * a.sign())


def test_real_of_a_non_contiguous_complex_tensor_is_a_view(lib):
    z = lib.tensor([[1 + 2j, 3 - 1j, 0.5j], [2.0, -1j, 1 + 1j]])
    col = z[:, ::2].real
    assert col.tolist() == [[1.0, 0.0], [2.0, 1.0]]
    col.mul_(10)
    assert z[:, 0].tolist() == [10 + 2j, 20 + 0j]
    assert z.t().imag.tolist() == [[2.0, 0.0], [-1.0, -1.0], [0.5, 1.0]]
    s = z.sum()
    assert (s.real.item(), s.imag.item()) == pytest.approx((43.0, 1.5))


def test_conj_records_conj_backward(lib):
    z = lib.tensor([1 + 2j, -1j], requires_grad=True)
    assert z.conj().grad_fn.name() == "ConjBackward0"
    assert lib.conj(z).grad_fn.name() == "ConjBackward0"


COMPLEX_GRADS = """(z * u[0, 0]).abs() | (z / (2 - 1j)).abs() | z.sgn() | (z * (1 - 2j)).angle()
z.exp() * (1 + 1j) | z.log() | z.sqrt() | (1 / z).imag | z.sin() + z.cos() | z.tanh()
z.sigmoid() | z ** 3 | z ** u[0, 1] | (2 + 1j) / z | t.add(z, z, alpha=2 - 1j)
t.sub(z, z * 1j, alpha=1j) | u @ z[:4] | t.mv(u, z[:4, 0]) | t.dot(z[0], z[1])
(u.unsqueeze(0) @ z[:4].unsqueeze(0)).abs() | z.abs() ** 2 | t.sgn(x) | x.abs()
t.addmm(u[:, :3], u, z[:, :3], beta=2, alpha=1j) | t.addmv(u[:, 0], u, z[:, 0]) | t.vdot(z[0], z[1])
t.addr(u, z[:3, 0], z[0, :4], alpha=2 - 1j) | t.baddbmm(u[:1, :3], u[None], z[None, :, :3])
t.addbmm(u[:, :3], u[None], z[None, :, :3]) | t.addcmul(z, z, z * 1j, value=2) | z.prod()
t.addcdiv(z, z, z + 3, value=1j) | z.prod(1) | z.cumprod(1) | z.rsqrt() | z.expm1() | z.log1p()
z.exp2() | z.log2() + z.log10() | z.tan() | z.sinh() + z.cosh() | (z / 4).asin() + (z / 4).acos()
(z / 4).atan() | z.asinh() | z.acosh() | (z / 4).atanh() | t.einsum("ij,kj->ik", z, u)"""


@pytest.mark.parametrize("expr", exprs(COMPLEX_GRADS))
def test_complex_gradients_follow_torch_convention(torch, expr):
    _same(torch, expr)


COMPLEX_FUNCTIONS = [
    lambda z, w: z * w * (1 - 2j),
    lambda z, w: z / w + (2 + 1j) / w,
    lambda z, w: (z * w).abs() + z.angle(),
    lambda z, w: z.sgn() * w.conj(),
    lambda z, w: z.exp() + w.log() + z.sqrt(),
    lambda z, w: z.sin() * w.cos() + z.tanh(),
    lambda z, w: z**3 + z**w,
    lambda z, w: z.unsqueeze(1) @ w.unsqueeze(0),
    lambda z, w: (z.real * w.imag).sum() + z.sum() * w.mean(),
]


@pytest.mark.parametrize("fn", COMPLEX_FUNCTIONS)
def test_complex_ops_pass_gradcheck(lib, fn):
    z = lib.tensor([1 + 2j, -0.5 + 1j, 0.75 - 0.25j], dtype=lib.complex128, requires_grad=True)
    w = lib.tensor([0.5 - 1j, 2 + 0.5j, -1 + 1.5j], dtype=lib.complex128, requires_grad=True)
    assert lib.autograd.gradcheck(fn, (z, w))
    assert lib.autograd.gradgradcheck(fn, (z, w))


def test_autocast_runs_the_transforms_in_float32(lib):
    x = lib.randn(2, 8).bfloat16()
    with lib.autocast("cpu"):
        assert lib.fft.rfft(x).dtype == lib.complex64
        assert lib.fft.irfftn(lib.fft.rfftn(x)).dtype == lib.float32
        window = lib.hann_window(4)
        assert lib.stft(x, 4, window=window, return_complex=True).dtype == lib.complex64
        with pytest.raises(RuntimeError, match="^Unsupported dtype BFloat16"):
            lib.fft.hfftn(x)  # not on PyTorch's list


def _spectral_layer_losses(lib):
    # a Fourier neural operator's layer: complex weights on the low modes of rfft2, written
    # into a zero spectrum in place, irfft2 back, a linear layer; Adam on the complex weights
    rng = np.random.default_rng(0)
    weights = rng.standard_normal((3, 4, 5, 3)) + 1j * rng.standard_normal((3, 4, 5, 3))
    w = lib.nn.Parameter(lib.tensor(weights * 0.1, dtype=lib.complex64))
    linear = lib.nn.Linear(4, 4)
    with lib.no_grad():
        linear.weight.copy_(lib.tensor(rng.standard_normal((4, 4)), dtype=lib.float32))
        linear.bias.zero_()
    x = lib.tensor(rng.standard_normal((2, 3, 8, 8)), dtype=lib.float32)
    target = lib.tensor(rng.standard_normal((2, 4, 8, 8)), dtype=lib.float32)
    opt = lib.optim.Adam([w, *linear.parameters()], lr=1e-2)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        spectrum = lib.zeros(2, 4, 8, 5, dtype=lib.complex64)
        spectrum[:, :, :5, :3] = lib.einsum("bixy,ioxy->boxy", lib.fft.rfft2(x)[:, :, :5, :3], w)
        y = linear(lib.fft.irfft2(spectrum, s=(8, 8)).permute(0, 2, 3, 1)).permute(0, 3, 1, 2)
        loss = ((y - target) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, w.detach().numpy()


def test_spectral_layer_trains_as_torch(torch):
    ours, w_ours = _spectral_layer_losses(dyngrad)
    theirs, w_theirs = _spectral_layer_losses(torch)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)
    np.testing.assert_allclose(w_ours, w_theirs, rtol=1e-4, atol=1e-6)
