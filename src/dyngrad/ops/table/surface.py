"""The public surface generated from the op table: `dyngrad.*` functions and Tensor methods."""

from __future__ import annotations

from .argument_errors import method_copy, register
from .errors import expect_tensor
from .fast import unary
from .inplace import apply_inplace
from .out import OUT_FUNCTIONS, OUT_OPS, with_out
from .record import apply

__all__ = ["FUNCTIONS", "METHODS", "public", "public_unary", "special_unary", "install"]

FUNCTIONS: dict = {}
METHODS: dict = {}


def public(fn=None, *, name: str | None = None, method: bool | str = True, function: bool = True):
    """Publish `fn` as `dyngrad.<name>` and (unless method=False) as `Tensor.<name>`.

    `method` may be a different name for the method (`__add__`).
    """

    def register(f):
        key = name or f.__name__
        if function:
            FUNCTIONS[key] = f
        if method:
            METHODS[key if method is True else method] = f
        return f

    return register(fn) if fn is not None else register


def public_unary(name: str, op, fn=None, *, aliases=(), inplace_function: bool = True):
    """Publish a one-input row as `<name>` (`fn`, by default the row's fast form) and `<name>_`.

    Both are functions and methods, also under each alias; `inplace_function=False` leaves
    `<name>_` a method only, as PyTorch has no `torch.sign_`. Returns `fn`.
    """
    fn = unary(op) if fn is None else fn

    def fn_(self):
        return apply_inplace(op, (self,), name=name + "_")

    fn.__name__, fn_.__name__ = name, name + "_"
    fn.__doc__ = f"Matches `torch.{name}`."
    for alias in (name, *aliases):
        public(fn, name=alias)
        public(fn_, name=alias + "_", function=inplace_function)
    return fn


def special_unary(name: str, op, argument: str = "input"):
    """A `torch.special.<name>` function of one row over one tensor (`argument` is the name
    PyTorch's schema gives the input, which its argument error says). Not published as
    `dyngrad.*` or a method: dyngrad.special collects these."""

    def fn(input):
        expect_tensor("special_" + name, argument, 1, input)
        return apply(op, (input,))

    fn.__name__ = name
    fn.__doc__ = f"Matches `torch.special.{name}`."
    return fn


def install(cls) -> None:
    """Attach the methods to `cls`; each shared with a function gets its own code object, so
    an argument error can tell `x.flatten(...)` from `torch.flatten(x, ...)`. See
    Note [Argument errors]."""
    functions = {id(fn) for fn in FUNCTIONS.values()}
    for key, fn in FUNCTIONS.items():
        register(fn, key, method=False)
    for key in OUT_FUNCTIONS & FUNCTIONS.keys():  # See Note [out= arguments]
        FUNCTIONS[key] = with_out(FUNCTIONS[key], key, OUT_OPS.get(key, ""))
        register(FUNCTIONS[key], key, method=False)  # the frame argument errors look for
    for key, fn in METHODS.items():
        if id(fn) in functions and not key.startswith("__"):
            fn = METHODS[key] = method_copy(fn)
        register(fn, key.strip("_") if key.startswith("__") else key, method=True)
        setattr(cls, key, fn)
