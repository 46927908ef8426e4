"""PyTorch's argument-parser TypeErrors, worked out on the error path from the user's call.

# Note [Argument errors]
# PyTorch's parser names the op, the parameter and its position as the user wrote the call:
# `torch.flatten(x, 0.5)` has the bad value at position 2, `x.flatten(0.5)` at position 1.
# dyngrad's function and Tensor method are one Python function, so `install` gives each
# method its own copy of the code object (equal to the function's, but not the same object).
# When a check fails, `user_call` walks the stack to the outermost public op's frame: its code
# says which op and which form, its locals which parameter holds the bad value. An op that
# PyTorch overloads (`sum(dim)` and `sum(dtype=)`) reports "received an invalid combination of
# arguments" instead, listing the types of the arguments given. None of this runs unless an
# argument is bad, so the hot path pays nothing.
"""

from __future__ import annotations

import dis
import sys
import types

from ..._tensor import Tensor
from ...runtime import dtypes
from .generated import is_trampoline, on_compile

__all__ = [
    "CALLS",
    "REQUIRED",
    "ALL_DIMS",
    "register",
    "method_copy",
    "user_call",
    "method_offset",
    "type_error",
    "list_type_error",
    "missing_error",
    "invalid_combination",
    "type_name",
    "legacy_type",
    "named_type_error",
]

# id of a code object -> (public name, called as a Tensor method, the function); by id, as a
# method's copy of a code object compares equal to the original
CALLS: dict = {}

# PyTorch 2.13's ops with more than one Python signature: a bad argument to them is an
# "invalid combination of arguments" (found by calling each with an argument of no known type)
OVERLOADED = frozenset(
    "addbmm addcdiv addcdiv_ addcmul addcmul_ addmm addmv addr all any arange argsort baddbmm "
    "bernoulli bernoulli_ bucketize clamp clamp_ clamp_max clamp_max_ clamp_min clamp_min_ "
    "clip clip_ count_nonzero divide divide_ eq eq_ eye fill_ floor_divide floor_divide_ fmod "
    "fmod_ ge ge_ greater greater_ greater_equal greater_equal_ gt gt_ index_fill index_fill_ "
    "isin le le_ lerp lerp_ less less_ less_equal less_equal_ linspace logspace lt lt_ "
    "masked_fill masked_fill_ max mean min moveaxis movedim multiply multiply_ narrow ne ne_ "
    "normal not_equal not_equal_ pow pow_ prod rand rand_like randint_like randn randn_like "
    "random_ randperm remainder remainder_ repeat_interleave round rsub scatter scatter_ "
    "searchsorted sort squeeze std std_mean subtract subtract_ sum tensor_split to true_divide "
    "true_divide_ var var_mean view where xlogy xlogy_".split()
)


def type_name(value) -> str:
    """The name PyTorch gives an argument's type: `Tensor`, `float`, `numpy.float64`."""
    if isinstance(value, Tensor):
        return "Tensor"
    if isinstance(value, dtypes.dtype):
        return "torch.dtype"
    t = type(value)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"


def legacy_type(x) -> str:
    """PyTorch's legacy name of a tensor's type (`torch.FloatTensor`); bool has none and shows
    its dispatch key's (`CPUBoolType`)."""
    return "CPUBoolType" if x.dtype is dtypes.bool_ else f"torch.{x.dtype._legacy}Tensor"


def register(fn, name: str, method: bool) -> None:
    if isinstance(fn, types.FunctionType):
        CALLS.setdefault(id(fn.__code__), (name, method, fn))


def _follow_compiled(trampoline, code) -> None:  # See Note [Generated functions]
    # the call is the compiled code's frame (whose locals are the parameters), not the
    # trampoline's that made it on the first call
    if id(trampoline) in CALLS:
        CALLS.setdefault(id(code), CALLS.pop(id(trampoline)))


on_compile(_follow_compiled)


def method_copy(fn):
    """`fn` with a code object of its own (equal, not identical), to be a Tensor method."""
    if not isinstance(fn, types.FunctionType):
        return fn
    code = fn.__code__.replace(co_name=fn.__code__.co_name)  # always a new object
    copy = types.FunctionType(code, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    copy.__dict__.update(fn.__dict__)
    copy.__doc__, copy.__module__, copy.__qualname__ = fn.__doc__, fn.__module__, fn.__qualname__
    return copy


def user_call():
    """The frame of the public op the user called (the outermost one on the stack), or None."""
    frame, found = sys._getframe(1), None
    while frame is not None and frame.f_globals.get("__name__", "").startswith("dyngrad."):
        if id(frame.f_code) in CALLS:
            found = frame
        frame = frame.f_back
    return found


def method_offset() -> int:
    """1 when the user called a Tensor method (its self is not counted in positions), else 0."""
    frame = user_call()
    return int(frame is not None and CALLS[id(frame.f_code)][1])


def call_keywords(frame) -> tuple | None:
    """The keyword names and argument count of the call that made `frame`, read from the
    caller's bytecode (CPython 3.11+: KW_NAMES before CALL); None where that cannot be read."""
    caller = frame.f_back
    if caller is not None and is_trampoline(caller.f_code):  # See Note [Generated functions]
        caller = caller.f_back
    if caller is None or sys.version_info < (3, 11):
        return None
    instructions = list(dis.get_instructions(caller.f_code))
    # f_lasti may point into the call's inline cache: the call is the last instruction before
    at = max(
        (i for i, ins in enumerate(instructions) if ins.offset <= caller.f_lasti), default=None
    )
    if at is None or not instructions[at].opname.startswith("CALL"):
        return None
    names: tuple = ()
    for ins in reversed(instructions[max(at - 3, 0) : at]):
        if ins.opname == "KW_NAMES":
            names = caller.f_code.co_consts[ins.arg]
            break
        if ins.opname == "LOAD_CONST" and instructions[at].opname == "CALL_KW":
            names = ins.argval
            break
    return names, instructions[at].arg


def _given(frame) -> tuple[list, dict]:
    # the arguments the call was given: read from the call itself where CPython lets us
    # (call_keywords); else positional ones up to the last that is not its default, and
    # keyword-only ones that are not their default
    name, method, fn = CALLS[id(frame.f_code)]
    code, values = frame.f_code, frame.f_locals
    call = call_keywords(frame)
    if call is not None and not code.co_flags & 0x04:
        keywords, count = call
        positional = code.co_varnames[: count - len(keywords) + method]
        return (
            [values[n] for n in positional][method:],
            {k: values[k] for k in keywords if k in values},
        )
    names = code.co_varnames[: code.co_argcount]
    defaults = fn.__defaults__ or ()
    args = [values[n] for n in names]
    first_default = len(names) - len(defaults)
    while len(args) > first_default and args[-1] is defaults[len(args) - 1 - first_default]:
        args.pop()
    if code.co_flags & 0x04:  # *args
        args += list(values[code.co_varnames[code.co_argcount + code.co_kwonlyargcount]])
    kw_names = code.co_varnames[code.co_argcount : code.co_argcount + code.co_kwonlyargcount]
    kw_defaults = fn.__kwdefaults__ or {}
    kwargs = {n: values[n] for n in kw_names if values[n] is not kw_defaults.get(n)}
    return (args[1:] if method else args), kwargs


def invalid_combination(fn: str, args, kwargs: dict | None = None) -> TypeError:
    """PyTorch's TypeError when no overload of `fn` takes the arguments given."""
    given = [type_name(a) for a in args]
    given += [f"{k}={type_name(v)}" for k, v in (kwargs or {}).items()]
    tail = ", " if kwargs and not args else ""
    return TypeError(
        f"{fn}() received an invalid combination of arguments - got "
        f"({', '.join(given)}{tail}), but expected one of:"
    )


def type_error(value, expected: str, found: str | None = None) -> TypeError:
    """PyTorch's TypeError for `value` given to the op the user called, which wants `expected`
    (`int`, `tuple of ints`); `found` replaces the `not float` tail."""
    frame = user_call()
    if frame is None:
        return TypeError(f"expected {expected}, got {type_name(value)}")
    fn, method, _ = CALLS[id(frame.f_code)]
    if fn in OVERLOADED:
        return invalid_combination(fn, *_given(frame))
    name = _parameter(frame, value)
    if name is None:
        return TypeError(f"{fn}(): expected {expected}, got {type_name(value)}")
    tail = found or f"not {type_name(value)}"
    call = call_keywords(frame)
    if call is not None and name in call[0]:  # given by keyword: PyTorch names no position
        return TypeError(f"{fn}(): argument '{name}' must be {expected}, {tail}")
    position = frame.f_code.co_varnames.index(name) + 1 - method
    return TypeError(f"{fn}(): argument '{name}' (position {position}) must be {expected}, {tail}")


def named_type_error(fn: str, name: str, position: int, expected: str, value) -> TypeError:
    """The argument TypeError of a function outside the op registry (`F.one_hot`), keyword use
    read from the call of the function that raises it."""
    call = call_keywords(sys._getframe(1))
    where = "" if call is not None and name in call[0] else f" (position {position})"
    return TypeError(f"{fn}(): argument '{name}'{where} must be {expected}, not {type_name(value)}")


def _parameter(frame, value) -> str | None:
    # the parameter of the user's call that holds `value`
    code = frame.f_code
    params = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    return next((n for n in params if frame.f_locals[n] is value), None)


def list_type_error(seq, index: int) -> TypeError:
    """PyTorch's TypeError for an int list whose element `index` is not an int: the first
    element decides the overload, a later one fails to unpack."""
    bad = type_name(seq[index])
    if index == 0:
        return type_error(seq, "tuple of ints", f"but found element of type {bad} at pos 0")
    frame = user_call()
    name = _parameter(frame, seq) if frame is not None else None
    fn = CALLS[id(frame.f_code)][0] if frame is not None else "?"
    return TypeError(
        f"{fn}(): argument '{name}' failed to unpack the object at pos {index + 1} "
        f'with error "type must be tuple of ints,but got {bad}"'
    )


class _Default:
    """A default no caller can pass, for a parameter whose absence PyTorch tells apart from
    any value given (an explicit `dim=None` is refused where leaving `dim` out is fine)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name}>"


# a parameter PyTorch requires (`softmax(input, dim)`): leaving it out is PyTorch's TypeError,
# raised where the value is read (`as_int`), not Python's
REQUIRED = _Default("required")
# `max(x)` reduces every dim, `max(x, dim=None)` is a TypeError
ALL_DIMS = _Default("all dims")


def missing_error(value) -> TypeError:
    frame = user_call()
    if frame is None:
        return TypeError("missing a required argument")
    fn, name = CALLS[id(frame.f_code)][0], _parameter(frame, value)
    return TypeError(f'{fn}() missing 1 required positional arguments: "{name}"')
