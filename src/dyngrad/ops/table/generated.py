"""Functions the table writes (out= forms, array backwards): their parameters, their code."""

from __future__ import annotations

import inspect
import linecache
import types

__all__ = ["parameters", "generated_function", "on_compile", "is_trampoline"]

_CO_VARARGS, _CO_VARKEYWORDS = inspect.CO_VARARGS, inspect.CO_VARKEYWORDS
_Parameter = inspect.Parameter
_EMPTY = _Parameter.empty


class Param:
    """One parameter as `inspect.Parameter` describes it (name, kind, default), made cheaply."""

    __slots__ = ("name", "kind", "default")
    empty = _EMPTY
    POSITIONAL_ONLY = _Parameter.POSITIONAL_ONLY
    POSITIONAL_OR_KEYWORD = _Parameter.POSITIONAL_OR_KEYWORD
    VAR_POSITIONAL = _Parameter.VAR_POSITIONAL
    KEYWORD_ONLY = _Parameter.KEYWORD_ONLY
    VAR_KEYWORD = _Parameter.VAR_KEYWORD

    def __init__(self, name: str, kind, default=_EMPTY) -> None:
        self.name, self.kind, self.default = name, kind, default


def parameters(fn, follow_wrapped: bool = True) -> tuple:
    """`inspect.signature(fn).parameters.values()`, read from a function's code object.

    The table reads the parameters of ~1000 forwards and formulas as dyngrad loads; building
    `inspect.Signature`s for them took a tenth of `import dyngrad`. What is not a plain
    function (a partial, a method, a class, one with `__signature__`) asks inspect.
    """
    if follow_wrapped:
        while hasattr(fn, "__wrapped__"):
            fn = fn.__wrapped__
    code = getattr(fn, "__code__", None)
    if type(fn) is not types.FunctionType or code is None or hasattr(fn, "__signature__"):
        found = inspect.signature(fn, follow_wrapped=follow_wrapped).parameters.values()
        return tuple(found)
    names, n_positional = code.co_varnames, code.co_argcount
    defaults = fn.__defaults__ or ()
    first_default = n_positional - len(defaults)
    out = []
    for i, name in enumerate(names[:n_positional]):
        kind = Param.POSITIONAL_ONLY if i < code.co_posonlyargcount else Param.POSITIONAL_OR_KEYWORD
        out.append(Param(name, kind, defaults[i - first_default] if i >= first_default else _EMPTY))
    rest = n_positional + code.co_kwonlyargcount
    if code.co_flags & _CO_VARARGS:
        out.append(Param(names[rest], Param.VAR_POSITIONAL))
        rest += 1
    keyword_defaults = fn.__kwdefaults__ or {}
    for name in names[n_positional : n_positional + code.co_kwonlyargcount]:
        out.append(Param(name, Param.KEYWORD_ONLY, keyword_defaults.get(name, _EMPTY)))
    if code.co_flags & _CO_VARKEYWORDS:
        out.append(Param(names[rest], Param.VAR_KEYWORD))
    return tuple(out)


# Note [Generated functions]
# The table writes some functions as source (an op's out= form with the op's own signature,
# a node's backward on arrays) so that calling them costs one plain call. Compiling ~250 of
# them took a third of `import dyngrad`, so each is compiled when it is first called: until
# then it is a function whose code (a trampoline of its own, named as it is) compiles the
# source and takes on its code (same name, globals, defaults), then runs it; from then on it
# is the generated function itself. Its source is in linecache under `filename` from the
# start, for tracebacks and profilers. Who keys a table by code object (argument errors find
# the user's call by it) hears of the new code through `on_compile`; who reads the caller's
# bytecode (argument errors again) looks past a trampoline's frame with `is_trampoline`: on
# the first call it stands between the user's call and the generated function, passing the
# arguments on as they were given.

_listeners: list = []
_trampolines: set = set()  # ids of the trampolines' code (each kept by its function's globals)


def is_trampoline(code) -> bool:
    """Whether `code` is a generated function's first-call trampoline."""
    return id(code) in _trampolines


def on_compile(listener) -> None:
    """Call `listener(trampoline_code, code)` when a generated function is compiled."""
    _listeners.append(listener)


def _first_call(*args, **kwargs):
    # runs with the generated function's own globals, which hold it and `_compile`
    return _compile(_generated_self)(*args, **kwargs)  # noqa: F821


_FIRST_CALL = _first_call.__code__


def _compile(function):
    """`function` given the code its source defines (once: a racing thread finds it done)."""
    namespace = function.__globals__
    trampoline = namespace["_trampoline"]
    if function.__code__ is trampoline:
        source, filename = namespace["_source"], namespace["_filename"]
        if callable(source):  # written now: See generated_function
            source = namespace["_source"] = source(namespace)
            linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        exec(compile(source, filename, "exec"), namespace)  # noqa: S102
        real = namespace[namespace["_name"]]
        function.__code__, function.__defaults__ = real.__code__, real.__defaults__
        function.__kwdefaults__ = real.__kwdefaults__
        for listener in _listeners:
            listener(trampoline, real.__code__)
    return function


def generated_function(name: str, source: str, filename: str, namespace: dict):
    """The function `name` that `source` defines in `namespace`, compiled at its first call.

    `source` may be a function of the namespace that writes it, then: the ~200 out= forms'
    sources cost a fiftieth of `import dyngrad` to write, and most are never called.
    """
    if not callable(source):
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    trampoline = _FIRST_CALL.replace(co_name=name)  # its own: tables key by code
    namespace.update(_source=source, _filename=filename, _name=name, _compile=_compile)
    namespace["_trampoline"] = trampoline
    _trampolines.add(id(trampoline))
    function = types.FunctionType(trampoline, namespace, name)
    function.__qualname__ = name
    namespace["_generated_self"] = function
    return function
