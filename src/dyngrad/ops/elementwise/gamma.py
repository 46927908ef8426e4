"""The gamma family: lgamma, digamma, polygamma, mvlgamma and the regularized incomplete gamma
functions (igamma, igammac), with PyTorch's nodes and derivative formulas."""

from __future__ import annotations

from ..arrays import gamma_functions, incomplete_gamma
from ..table import promotion
from ..table.errors import expect_tensor
from ..table.inplace import apply_inplace
from ..table.record import apply
from ..table.registry import defop
from ..table.surface import public, public_unary


def _digamma(x):
    return apply(DIGAMMA, (x,))


def _polygamma(x, n):
    return apply(POLYGAMMA, (x,), {"n": n})


def _mvlgamma_grad(g, x, p):
    # d/dx sum_i lgamma(x - i/2) = sum_i digamma(x - i/2)
    return g * sum(_digamma(x - 0.5 * i) for i in range(p))


def _igamma_density(a, x):
    # dP(a, x)/dx = x^(a-1) e^-x / Gamma(a), the gamma density
    return ((a - 1) * x.log() - x - apply(LGAMMA, (a,))).exp()


def _not_implemented(name):
    def formula(g):
        raise NotImplementedError(f"the derivative for '{name}' is not implemented.")

    return formula


# ---- the table ------------------------------------------------------------------------------

# d lgamma/dx = digamma(x); d digamma/dx = polygamma(1, x); d polygamma(n)/dx = polygamma(n + 1)
LGAMMA = defop(
    "lgamma",
    gamma_functions.lgamma,
    {"x": lambda g, x: g * _digamma(x)},
    promote=promotion.floating,
)
DIGAMMA = defop(
    "digamma",
    gamma_functions.digamma,
    {"x": lambda g, x: g * _polygamma(x, 1)},
    promote=promotion.floating,
)
POLYGAMMA = defop(
    "polygamma",
    lambda xp, x, *, n: gamma_functions.polygamma(xp, x, n),
    {"x": lambda g, x, n: g * _polygamma(x, n + 1)},
    promote=promotion.floating,
)
MVLGAMMA = defop(
    "mvlgamma",
    lambda xp, x, *, p: gamma_functions.mvlgamma(xp, x, p),
    {"x": _mvlgamma_grad},
    promote=promotion.floating,
)


def _igamma_fwd(fn):
    return lambda xp, a, x: fn(xp, a, x).astype(a.dtype, copy=False)


IGAMMA = defop(
    "igamma",
    _igamma_fwd(incomplete_gamma.igamma),
    {"a": _not_implemented("igamma: input"), "x": lambda g, a, x: g * _igamma_density(a, x)},
    promote=promotion.floating_kernel("igamma_cpu"),
)
IGAMMAC = defop(
    "igammac",
    _igamma_fwd(incomplete_gamma.igammac),
    {"a": _not_implemented("igammac: input"), "x": lambda g, a, x: g * -_igamma_density(a, x)},
    promote=promotion.floating_kernel("igammac_cpu"),
)

# ---- the public surface ----------------------------------------------------------------------


def _publish(name, op):
    def fn(input):
        expect_tensor(name, "input", 1, input)
        return apply(op, (input,))

    return public_unary(name, op, fn, inplace_function=False)


lgamma = _publish("lgamma", LGAMMA)
digamma = _publish("digamma", DIGAMMA)


def _check_n(n) -> int:
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(
            f"polygamma(): argument 'n' (position 1) must be int, not {type(n).__name__}"
        )
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return n


@public(method=False)
def polygamma(n, input):
    """Matches `torch.polygamma(n, input)`: the n-th derivative of digamma."""
    expect_tensor("polygamma", "input", 2, input)
    return apply(POLYGAMMA, (input,), {"n": _check_n(n)})


@public(function=False, name="polygamma")
def _polygamma_method(self, n):
    return apply(POLYGAMMA, (self,), {"n": _check_n(n)})


@public(function=False)
def polygamma_(self, n):
    return apply_inplace(POLYGAMMA, (self,), {"n": _check_n(n)}, name="polygamma_")


def _check_p(p) -> int:
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    return int(p)


@public
def mvlgamma(input, p):
    """Matches `torch.mvlgamma`: sum_i lgamma(input - i/2) + p (p - 1)/4 log(pi)."""
    expect_tensor("mvlgamma", "input", 1, input)
    return apply(MVLGAMMA, (input,), {"p": _check_p(p)})


@public(function=False)
def mvlgamma_(self, p):
    return apply_inplace(MVLGAMMA, (self,), {"p": _check_p(p)}, name="mvlgamma_")


def _binary(name, op):
    def fn(input, other):
        expect_tensor(name, "input", 1, input)
        expect_tensor(name, "other", 2, other)
        return apply(op, (input, other))

    def fn_(self, other):
        expect_tensor(name + "_", "other", 1, other)
        return apply_inplace(op, (self, other), name=name + "_")

    fn.__name__, fn_.__name__ = name, name + "_"
    fn.__doc__ = f"Matches `torch.{name}`."
    public(fn, name=name)
    public(fn_, name=name + "_", function=False)
    return fn


igamma = _binary("igamma", IGAMMA)
igammac = _binary("igammac", IGAMMAC)
