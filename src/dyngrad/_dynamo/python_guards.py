"""Watching the user's Python during a capture call: whether a replay may skip it, and guards.

# Note [Watching the Python]
# A replay runs a captured call's array ops without running the user's Python. That is right
# only if running the Python again would do exactly what it did while captured: the same
# branches, the same ops on the same objects, and nothing else the world can see. `Watch`
# traces the user's frames opcode by opcode during the capture call (sys.settrace with
# f_trace_opcodes; dyngrad's own frames are not traced, so they cost one call event) and
# decides, before each instruction runs, what it reads and whether it does something a replay
# cannot redo:
#   - reads of state that outlives the call (globals, builtins, closure cells, attributes of
#     objects the call did not make, items of such containers, the items of external lists,
#     dicts and sets it iterates, the metadata of tensors it did not make) become guards:
#     flat tuples that `check` re-reads on a later call and compares with what was read
#     (scalars by type and equality, everything else by identity);
#   - writes to such state (attributes, items, globals, nonlocals, imports, calls of mutating
#     methods on external containers), calls of C functions not known to be pure (print,
#     time, random, NumPy...) and exceptions are refusals: the first one is kept, in words
#     naming file:line, and watching stops.
# Objects the call made are exempt: tensors the traced ops made (`is_made`, the capture's op
# trace says so; their reads are functions of the trace) and Python objects the user's frames
# built during the call ("fresh": displays, comprehensions, calls of list/dict/set and of
# classes, *args and **kwargs), pinned so that their ids stay valid.
# What dyngrad's own frames read (Module.__call__'s hooks, ModuleList.__iter__, an op's
# arguments) is not guarded here: those frames are not traced, and the caller of Watch guards
# the module state they read. Calls go unseen only into Python code (traced or dyngrad's);
# a C callable must be known pure (builtins, math, operator, the methods of Python's values).
# The instruction's operands are read off the frame's value stack with ctypes (See Note
# [Peeking at the value stack]); a value an instruction produces (an attribute, an item, a
# call's result) is read at the frame's next opcode event, from the stack top, so that no
# property or __getattr__ runs twice. Anything not understood is refused: a refusal costs a
# replay, a wrong guard costs a wrong answer.
#
# Note [Peeking at the value stack]
# CPython 3.11 keeps a frame's locals and value stack in one array after its
# _PyInterpreterFrame (72 bytes of pointers and flags, `localsplus`), and stores the stack top
# before it calls the trace function for an 'opcode' event, so the operands of the
# instruction about to run are at localsplus[stacktop - 1], [stacktop - 2], ... The frame
# object points at its _PyInterpreterFrame at offset 24. This layout is CPython 3.11's own, so
# the watcher checks the interpreter and peeks a known function's stack once (`_layout_ok`)
# before trusting it; elsewhere it refuses and installs nothing.
"""

from __future__ import annotations

import builtins
import collections
import ctypes
import dis
import functools
import inspect
import os
import sys
import sysconfig
import types
import weakref

from .._tensor import Tensor
from ..nn.modules.module import Module
from . import capture
from .capture import PACKAGE

__all__ = ["Watch", "check", "describe", "immutable", "tensors_read"]

_MISSING = type("missing", (), {"__repr__": lambda self: "<missing>"})()

# ---- values ---------------------------------------------------------------------------------

_SCALARS = frozenset((int, float, complex, bool, str, bytes, type(None)))
_PLAIN = (int, float, complex, bool, str, bytes, type(None), slice, range)


def _is_scalar(value) -> bool:
    """A value compared by type and equality: an immutable scalar, or a tuple of them."""
    kind = type(value)
    if kind in _SCALARS:
        return True
    return kind is tuple and all(_is_scalar(v) for v in value)


def _same(now, then, scalar: bool) -> bool:
    return now is then or (scalar and type(now) is type(then) and now == then)


# ---- the stack peek (See Note [Peeking at the value stack]) ----------------------------------


class _InterpreterFrame(ctypes.Structure):
    _fields_ = [
        ("f_func", ctypes.c_void_p),
        ("f_globals", ctypes.c_void_p),
        ("f_builtins", ctypes.c_void_p),
        ("f_locals", ctypes.c_void_p),
        ("f_code", ctypes.c_void_p),
        ("frame_obj", ctypes.c_void_p),
        ("previous", ctypes.c_void_p),
        ("prev_instr", ctypes.c_void_p),
        ("stacktop", ctypes.c_int),
        ("is_entry", ctypes.c_bool),
        ("owner", ctypes.c_char),
    ]


_LOCALSPLUS = (ctypes.sizeof(_InterpreterFrame) + 7) // 8 * 8
_NULL = _MISSING  # what `_peek` gives for an empty (NULL) stack slot
_read_pointer = ctypes.c_void_p.from_address


class _UnreadableError(LookupError):
    """A frame's stack or closure is not what its code says: the watcher refuses (never seen
    by the user's code)."""


def _peek(frame, depth: int):
    """The object `depth` slots below the top of `frame`'s value stack (0: the top), or _NULL."""
    iframe = _read_pointer(id(frame) + 24).value
    slot = _InterpreterFrame.from_address(iframe).stacktop - 1 - depth
    if slot < _code(frame.f_code).base:
        raise _UnreadableError(f"the stack of {frame.f_code.co_name} is not {depth + 1} deep")
    pointer = _read_pointer(iframe + _LOCALSPLUS + 8 * slot).value
    return ctypes.cast(pointer, ctypes.py_object).value if pointer else _NULL


def _stacktop(frame) -> int:
    return _InterpreterFrame.from_address(_read_pointer(id(frame) + 24).value).stacktop


def _localsplus(code) -> int:
    """How many slots the locals, cells and free variables take before the stack (an argument
    that is also a cell takes one)."""
    cells = set(code.co_cellvars) - set(code.co_varnames)
    return len(code.co_varnames) + len(cells) + len(code.co_freevars)


_layout: list = []  # [bool] once checked


def _probe(a, b):
    return a + b


def _probe_cells(a, b):
    def inner():
        return a

    return a + b


def _layout_ok() -> bool:
    if not _layout:
        impl = sys.implementation.name == "cpython" and sys.version_info[:2] == (3, 11)
        try:
            _layout.append(impl and _check_layout(_probe) and _check_layout(_probe_cells))
        except Exception:  # a peek that fails: the layout is not the one expected
            sys.settrace(None)
            _layout.append(False)
    return _layout[0]


def _check_layout(probe) -> bool:
    """Peek at `probe`'s stack where it adds its arguments: they must be the two top slots,
    right above its locals and cells."""
    seen: list = []
    left, right = object(), object()
    add = next(i.offset for i in dis.get_instructions(probe) if i.opname == "BINARY_OP")

    def trace(frame, event, arg):
        if frame.f_code is not probe.__code__:
            return None
        frame.f_trace_opcodes = True
        if event == "opcode" and frame.f_lasti == add:
            top = _stacktop(frame) - _localsplus(probe.__code__)
            seen.append((top, _peek(frame, 0), _peek(frame, 1)))
        return trace

    sys.settrace(trace)
    try:
        probe(left, right)
    except TypeError:
        pass  # object() + object(): the probe only needs its stack seen
    finally:
        sys.settrace(None)
    return seen == [(2, right, left)]


# ---- guards ---------------------------------------------------------------------------------

# A guard is a flat tuple (kind, obj, key, expected, scalar, text, where); `check` re-reads
# obj by kind and key and compares with expected (See Note [Watching the Python]).
DICT, ATTR, CELL, ITEM, META, ITEMS = range(6)


def _read(kind: int, obj, key):
    if kind == DICT:
        return obj.get(key, _MISSING)
    if kind == ATTR:
        return getattr(obj, key, _MISSING)
    if kind == CELL:
        try:
            return obj.cell_contents
        except ValueError:
            return _MISSING
    if kind == ITEM:
        try:
            return obj[key]
        except (KeyError, IndexError):
            return _MISSING
    if kind == META:
        return (tuple(obj.shape), obj.dtype, obj.requires_grad)
    return tuple(obj.items()) if isinstance(obj, dict) else tuple(obj)


def _same_items(now: tuple, then: tuple) -> bool:
    if len(now) != len(then):
        return False
    for a, b in zip(now, then):
        if a is b:
            continue
        if type(a) is tuple and type(b) is tuple and len(a) == 2 == len(b):  # a dict's pair
            if not (_same(a[0], b[0], True) and _same(a[1], b[1], _is_scalar(b[1]))):
                return False
        elif not _same(a, b, _is_scalar(b)):
            return False
    return True


def check(guards) -> str | None:
    """None when every guard holds, else the first that fails, described."""
    try:
        for kind, obj, key, expected, scalar, text, where in guards:
            if kind == DICT:
                now = obj.get(key, _MISSING)
            elif kind == ATTR:
                now = getattr(obj, key, _MISSING)
            elif kind == META:
                if obj.shape == expected[0] and obj.dtype is expected[1]:
                    if obj.requires_grad is expected[2]:
                        continue
                return f"{text} changed ({where})"
            elif kind == ITEMS:
                if _same_items(_read(kind, obj, key), expected):
                    continue
                return f"{text} changed ({where})"
            else:
                now = _read(kind, obj, key)
            if now is expected or (scalar and type(now) is type(expected) and now == expected):
                continue
            return f"{text} changed ({where})"
    except Exception as error:  # a guard's read raised: the state is not what was seen
        return f"{text} could not be read ({where}): {type(error).__name__}"
    return None


def _short(value) -> str:
    text = repr(value) if _is_scalar(value) else f"<{type(value).__name__} at {id(value):#x}>"
    if isinstance(value, types.ModuleType):
        text = f"<module {value.__name__}>"
    elif isinstance(value, types.BuiltinFunctionType):
        text = f"<built-in {value.__qualname__}>"
    elif isinstance(value, (types.FunctionType, type)):
        text = f"<{type(value).__name__} {value.__qualname__}>"
    elif isinstance(getattr(value, "__name__", None), str):
        text = f"<{type(value).__name__} {value.__name__}>"
    return text if len(text) < 80 else text[:76] + "...>"


def describe(guard) -> str:
    """One guard in words: "G['F'] is <module ...>", "tensor meta of self.w (3, 4) ..."."""
    kind, _, _, expected, scalar, text, where = guard
    if kind == META:
        shape, dtype, requires_grad = expected
        return f"tensor meta of {text} {shape} {dtype} rg={requires_grad} ({where})"
    if kind == ITEMS:
        return f"items of {text} unchanged ({len(expected)} items) ({where})"
    if expected is _MISSING:
        return f"{text} absent ({where})"
    return f"{text} {'==' if scalar else 'is'} {_short(expected)} ({where})"


# ---- what the watcher knows of Python -------------------------------------------------------

# opcodes that read or write nothing outside the frame and the objects on its stack
_HARMLESS = frozenset(
    """NOP RESUME CACHE EXTENDED_ARG LOAD_FAST STORE_FAST DELETE_FAST LOAD_CONST POP_TOP
    PUSH_NULL COPY SWAP PRECALL KW_NAMES RETURN_VALUE IS_OP BUILD_STRING BUILD_SLICE
    LIST_APPEND SET_ADD MAP_ADD FOR_ITER JUMP_FORWARD JUMP_BACKWARD
    JUMP_BACKWARD_NO_INTERRUPT POP_JUMP_FORWARD_IF_NONE POP_JUMP_FORWARD_IF_NOT_NONE
    POP_JUMP_BACKWARD_IF_NONE POP_JUMP_BACKWARD_IF_NOT_NONE MAKE_CELL COPY_FREE_VARS
    RETURN_GENERATOR YIELD_VALUE SEND LOAD_ASSERTION_ERROR""".split()
)
# opcodes that test the truth of the top (a container's truth is its length: a read)
_TRUTH = frozenset(
    """UNARY_NOT POP_JUMP_FORWARD_IF_TRUE POP_JUMP_FORWARD_IF_FALSE POP_JUMP_BACKWARD_IF_TRUE
    POP_JUMP_BACKWARD_IF_FALSE JUMP_IF_TRUE_OR_POP JUMP_IF_FALSE_OR_POP""".split()
)
# opcodes whose result (the stack top at the next event) is a new object of the call's own
_BUILDS = frozenset(
    "BUILD_LIST BUILD_MAP BUILD_SET BUILD_CONST_KEY_MAP BUILD_TUPLE LIST_TO_TUPLE "
    "MAKE_FUNCTION LOAD_CLOSURE".split()
)
_REFUSED = {
    "STORE_GLOBAL": "writes the global {}",
    "DELETE_GLOBAL": "deletes the global {}",
    "IMPORT_NAME": "imports {}",
    "IMPORT_STAR": "imports *",
    "LOAD_BUILD_CLASS": "defines a class",
    "SETUP_ANNOTATIONS": "sets up annotations",
}

# C callables known to be pure; `_FRESH_RESULT` also make a new object of the call's own
_PURE_BUILTINS = frozenset(
    """len isinstance issubclass min max abs round sum all any divmod pow hash iter sorted
    callable getattr hasattr next""".split()
)
_PURE_TYPES = frozenset(
    (range, enumerate, zip, map, filter, reversed, tuple, list, dict, set, frozenset, int)
    + (float, bool, str, slice, type, super, complex, bytes, object)
)
_FRESH_RESULT = frozenset(
    (range, enumerate, zip, map, filter, reversed, tuple, list, dict, set, frozenset, slice)
    + (super,)
)
_FRESH_BUILTINS = frozenset(("iter", "sorted"))
_MUTATING_OPERATOR = frozenset(
    """setitem delitem iadd iand iconcat ifloordiv ilshift imod imul imatmul ior ipow irshift
    isub itruediv ixor""".split()
)
_PURE_MODULES = frozenset(("math", "cmath", "operator", "_operator"))
_IMMUTABLE_TYPES = frozenset((tuple, str, bytes, int, float, complex, bool, frozenset, range))
_CONTAINERS = (list, dict, set)
# objects whose comparisons are identities (and arithmetic raises): functions, modules, types
_BY_IDENTITY = (
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    types.ModuleType,
    type,
)
_READS = {  # the non-mutating methods of the mutable builtin containers
    list: frozenset("index count copy __len__ __getitem__ __contains__ __iter__".split()),
    dict: frozenset("get keys values items copy __len__ __getitem__ __contains__".split()),
    set: frozenset(
        """copy union intersection difference symmetric_difference issubset issuperset
        isdisjoint __len__ __contains__""".split()
    ),
}
_WRITES = {
    list: frozenset("append extend insert pop remove clear sort reverse __setitem__".split()),
    dict: frozenset("pop popitem update setdefault clear __setitem__ __delitem__".split()),
    set: frozenset(
        """add discard remove pop clear update intersection_update difference_update
        symmetric_difference_update""".split()
    ),
}
_ITERATORS = frozenset(
    type(x)
    for x in (
        iter([]),
        iter(()),
        iter(""),
        iter(range(0)),
        iter({}),
        iter({}.values()),
        iter({}.items()),
        iter(set()),
        {}.keys(),
        {}.values(),
        {}.items(),
    )
)
_DESCRIPTORS = (types.MethodDescriptorType, types.WrapperDescriptorType)
_C_CALLABLES = (
    types.BuiltinFunctionType,
    types.MethodDescriptorType,
    types.WrapperDescriptorType,
    types.MethodWrapperType,
    types.ClassMethodDescriptorType,
)
_HEAPTYPE = 1 << 9
# Note [Values of tensors]
# Python that reads a tensor's values (`.item()`, `if t:`, `int(t)`, f"{t}", `max(a, b)` of
# tensors) takes its path from the data, which no guard can see: refused. (The capture
# reports these as graph breaks too.) Reads of a tensor's metadata are guarded or, for
# tensors the call made, follow from the op trace.
_VALUE_READS = frozenset(
    """item tolist numpy __bool__ __int__ __float__ __index__ __complex__ __repr__ __str__
    __format__ __contains__ __array__ equal allclose is_nonzero data_ptr""".split()
)
_SCALAR_OF = frozenset((int, float, bool, complex, str, bytes, range))
_TRUTH_OF_ITEMS = frozenset(("min", "max", "sorted", "any", "all"))
_FORMAT_SPEC = 0x04  # FORMAT_VALUE's flag: a format spec lies on the value
_INPLACE = 13  # BINARY_OP's arguments from here on are the in-place operators (+= ...)
_REMAINDER = 6  # BINARY_OP's `%` (and, plus _INPLACE, `%=`)
_UNSEEN = "a replay can't redo calls it can't see into"
_META_ATTRS = frozenset(
    "shape dtype requires_grad ndim device is_leaf layout T mT H mH real imag is_cuda".split()
)


def immutable(value) -> bool:
    """Whether reading from `value` can never see a change: scalars, slices, ranges and tuples
    (torch.Size among them) of such."""
    if isinstance(value, _PLAIN):
        return True
    return isinstance(value, tuple) and all(immutable(v) for v in value)


def _holds_tensor(value) -> bool:
    if isinstance(value, Tensor):
        return True
    if isinstance(value, (tuple, list, set)):
        return any(isinstance(v, Tensor) for v in value)
    return isinstance(value, dict) and any(isinstance(v, Tensor) for v in value.values())


def _is_container(value) -> bool:
    """A list, dict or set (subclasses too: OrderedDict, defaultdict, Counter)."""
    return isinstance(value, _CONTAINERS)


def _known_operand(value) -> bool:
    """Whether Python arithmetic on `value` is seen: Python's values (their C arithmetic is
    pure), dyngrad tensors (ops), or classes written in Python (their dunders are traced)."""
    if isinstance(value, (*_PLAIN, tuple, list, dict, set, frozenset, Tensor, *_BY_IDENTITY)):
        return True
    return value is _NULL or bool(type(value).__flags__ & _HEAPTYPE)


def _python_slot(cls, name: str) -> bool:
    """Whether `cls.<name>` is Python code (so its frames are traced or trusted)."""
    slot = getattr(cls, name, None)
    return isinstance(slot, (types.FunctionType, types.MethodType))


# Note [Arguments are roots]
# A guard re-reads the object it pinned. That is right for what every call reaches the same
# way (a global, a closure cell, the compiled module and what hangs from it), not for what
# comes in as an argument: the next call passes other objects, and the caller guards
# arguments by their kind only (a tensor's metadata, a scalar's value, another's type). So a
# guard on an argument of a frame entered from dyngrad's code (the forward, a hook) or on
# what it holds, and a call of such an argument, are refused; tensors and scalars are the
# caller's, tuples and **kwargs are looked into. A module argument (`self` of the forward) is
# kept in `Watch.roots`: the guards read from it hold while it is the same module, which the
# caller checks by identity.


# Note [Library frames]
# dyngrad's ops run NumPy's Python-level functions (np.amin is Python around a ufunc's
# reduce) and the standard library's; called from dyngrad's frames they are part of the op,
# which the lead's trace sees, and are not traced: a frame of the standard library or of the
# array libraries whose caller is not traced is trusted like dyngrad's own. Called from the
# user's frames they are the user's helpers and are traced (NumPy's then meet their C calls,
# which are refused: a replay can't redo what NumPy computes in Python).


def _library_dirs() -> tuple:
    paths = sysconfig.get_paths()
    dirs = {paths["stdlib"], paths["platstdlib"]}
    for name in ("numpy", "scipy", "cupy", "ml_dtypes"):
        module = sys.modules.get(name)
        if module is not None and getattr(module, "__file__", None):
            dirs.add(os.path.dirname(module.__file__))
    return (*(os.path.join(d, "") for d in dirs), "<frozen ")


class _Code:
    """One code object's instructions by offset, read once: ops[offset] is (opname, arg,
    argval, loaded), `loaded` the name the previous instruction loaded (the receiver's, for
    messages); where[offset] is "file:line"."""

    __slots__ = ("ops", "where", "freevars", "name", "base", "start", "__weakref__")

    def __init__(self, code) -> None:
        self.base = _localsplus(code)
        self.freevars = code.co_freevars
        self.name = code.co_name
        self.ops: dict = {}
        self.where: dict = {}
        base = os.path.basename(code.co_filename)
        line, loaded = code.co_firstlineno, None
        self.start = -1  # the offset of the first RESUME: a frame past it is resumed
        for ins in dis.get_instructions(code):
            if ins.opname == "RESUME" and self.start < 0:
                self.start = ins.offset
            line = ins.positions.lineno or line
            self.ops[ins.offset] = (ins.opname, ins.arg, ins.argval, loaded)
            self.where[ins.offset] = f"{base}:{line}"
            named = ins.opname in ("LOAD_FAST", "LOAD_GLOBAL", "LOAD_DEREF", "LOAD_ATTR")
            loaded = str(ins.argval) if named else None


_USER, _TRUSTED, _LIBRARY = range(3)
_STARRED = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS
_codes: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # code -> _Code


def _code(code) -> _Code:
    known = _codes.get(code)
    if known is None:
        known = _codes[code] = _Code(code)
    return known


class Watch:
    """Watches the user's Python during one capture call (See Note [Watching the Python]).

    with Watch(is_made) as watch:
        out = fn(*args)
    watch.refusal  # None: a replay may skip the Python; else the first reason, in words
    watch.guards   # what must hold on a later call for the Python to do the same: check()
    watch.roots    # module arguments the guards read from: they hold while these are the same
    """

    def __init__(self, is_made, trusted_prefix: str = PACKAGE) -> None:
        self.is_made = is_made
        self.trusted_prefix = trusted_prefix
        self.refusal: str | None = None
        self.guards: list = []
        self._seen: set = set()  # (kind, id(obj), key) of the guards made
        self._fresh: dict = {}  # id -> object built by the user's frames in the call
        self._names: dict = {}  # id -> how a guarded value was reached (for messages)
        self._files: dict = {}  # co_filename -> _USER, _TRUSTED or _LIBRARY
        # [class, its __init__ seen] of the class calls under way, for their __init__'s self
        self._constructing: list = []
        self._installed = False
        self._libraries = _library_dirs()
        self._arguments: dict = {}  # id -> (name, object) (See Note [Arguments are roots])
        self.roots: list = []  # the module arguments that guards read from (no repeats)

    # ---- installing ----

    def __enter__(self) -> Watch:
        if sys.gettrace() is not None or sys.getprofile() is not None:
            self.refusal = "a tracer is active (a debugger, coverage or a profiler)"
        elif not _layout_ok():
            self.refusal = "replay needs CPython 3.11's frame layout"
        else:
            self._installed = True
            sys.settrace(self._on_call)
        return self

    def __exit__(self, *exc) -> None:
        if self._installed:
            sys.settrace(None)
            self._installed = False
        self._fresh.clear()
        self._constructing.clear()

    def refuse(self, reason: str) -> None:
        if self.refusal is None:
            self.refusal = reason

    def _place(self, filename: str) -> int:
        place = self._files.get(filename)
        if place is None:
            place = _USER
            if filename.startswith(self.trusted_prefix):
                place = _TRUSTED
            elif filename.startswith(self._libraries):
                place = _LIBRARY
            self._files[filename] = place
        return place

    # ---- the trace functions ----

    def _on_call(self, frame, event, arg):
        if self.refusal is not None or not self._installed:
            return None
        place = self._place(frame.f_code.co_filename)
        if place == _TRUSTED:
            return None
        if place == _LIBRARY and (frame.f_back is None or frame.f_back.f_trace is None):
            return None  # See Note [Library frames]
        code = _code(frame.f_code)
        try:
            if frame.f_code.co_flags & _STARRED:
                self._starred(frame)
            entered = frame.f_back is None or frame.f_back.f_trace is None
            if entered and frame.f_lasti <= code.start:  # not a generator resumed
                self._entered(frame)
            if self._constructing and code.name == "__init__" and not self._constructing[-1][1]:
                self._constructed(frame)
        except Exception as error:  # the watcher must never disturb the call
            self.refuse(f"the watcher failed ({type(error).__name__}: {error})")
            return None
        frame.f_trace_lines = False
        frame.f_trace_opcodes = True
        return _FrameWatch(self, code)

    def _entered(self, frame) -> None:
        # See Note [Arguments are roots]
        code = frame.f_code
        count = code.co_argcount + code.co_kwonlyargcount
        count += bool(code.co_flags & inspect.CO_VARARGS)
        count += bool(code.co_flags & inspect.CO_VARKEYWORDS)
        local = frame.f_locals
        for name in code.co_varnames[:count]:
            self._argument(name, local.get(name, _NULL))

    def _argument(self, name: str, value) -> None:
        if value is _NULL or isinstance(value, Tensor) or _is_scalar(value):
            return
        if type(value) is tuple:
            for i, item in enumerate(value):
                self._argument(f"{name}[{i}]", item)
        elif type(value) is dict and id(value) in self._fresh:  # **kwargs
            for key, item in value.items():
                self._argument(f"{name}[{key!r}]", item)
        else:
            self._arguments.setdefault(id(value), (name, value))

    def _rooted(self, obj, what: str, where: str) -> bool:
        """Whether `obj` is an argument (refused, or for a module kept in `roots`)."""
        found = self._arguments.get(id(obj))
        if found is None:
            return False
        name, value = found
        if isinstance(value, Module):
            if all(value is not root for root in self.roots):
                self.roots.append(value)
            return False
        self.refuse(
            f"{what} the argument {name} ({where}): a replay can't guard what an argument "
            "that is not a tensor, a scalar or a module holds"
        )
        return True

    def _starred(self, frame) -> None:
        # a frame's *args tuple and **kwargs dict are made for the call
        code = frame.f_code
        index = code.co_argcount + code.co_kwonlyargcount
        for flag in (inspect.CO_VARARGS, inspect.CO_VARKEYWORDS):
            if code.co_flags & flag:
                self.fresh(frame.f_locals.get(code.co_varnames[index], _NULL))
                index += 1

    def _constructed(self, frame) -> None:
        # `Class(...)` called from the user's code runs its __init__ on a new object: fresh
        # See Note [Watching the Python]
        names = frame.f_code.co_varnames
        self_obj = frame.f_locals.get(names[0], _NULL) if names else _NULL
        if isinstance(self_obj, self._constructing[-1][0]):  # the first __init__ only
            self._fresh[id(self_obj)] = self_obj
            self._constructing[-1][1] = True

    # ---- classifying objects ----

    def external(self, obj) -> bool:
        """Whether `obj` outlives the call (neither made by the ops nor built by the Python)."""
        return obj is not _NULL and id(obj) not in self._fresh and not self.is_made(obj)

    def fresh(self, obj) -> None:
        if obj is not _NULL:
            self._fresh[id(obj)] = obj

    def name_of(self, obj, loaded) -> str:
        known = self._names.get(id(obj))
        if known is not None:
            return known
        return loaded if loaded is not None else f"<{type(obj).__name__}>"

    # ---- making guards ----

    def guard(self, kind, obj, key, value, text: str, where: str) -> None:
        tag = (kind, id(obj), key)
        if tag in self._seen:
            return
        if kind != META and self._rooted(obj, f"reads {text} from", where):
            return
        self._seen.add(tag)
        self.guards.append((kind, obj, key, value, _is_scalar(value), text, where))
        if value is not _MISSING and not _is_scalar(value):
            self._names.setdefault(id(value), text)
        if kind != META and isinstance(value, Tensor) and self.external(value):
            # a tensor the Python reached: its identity is guarded, and its metadata too
            # (`p.data = ...` keeps the identity and may change the shape the ops see)
            self.guard_meta(value, text, where)

    def guard_meta(self, tensor, text: str, where: str) -> None:
        meta = (tuple(tensor.shape), tensor.dtype, tensor.requires_grad)
        self.guard(META, tensor, None, meta, text, where)

    def guard_items(self, obj, text: str, where: str) -> None:
        """A read of all of an external container (iteration, len, `in`, comparison)."""
        if isinstance(obj, Tensor):
            if self.external(obj):
                self.guard_meta(obj, text, where)
        elif _is_container(obj) and self.external(obj):
            self.guard(ITEMS, obj, None, _read(ITEMS, obj, None), text, where)

    def guard_attr(self, obj, name: str, value, loaded, where: str) -> None:
        """`obj.<name>` read `value` (See Note [Watching the Python])."""
        if not self.external(obj) or immutable(obj) or type(obj) in _CONTAINERS:
            return  # a builtin container's attributes are its methods
        text = self.name_of(obj, loaded)
        if not isinstance(obj, Tensor) and self._rooted(obj, f"reads .{name} of", where):
            return
        if isinstance(obj, Tensor):
            self.guard_meta(obj, text, where)
            if name in _META_ATTRS or value is _MISSING or not self.external(value):
                return
        if isinstance(value, types.MethodType) and value.__self__ is obj:
            self.guard_method(obj, name, value.__func__, loaded, where)
            return
        owner, raw = _class_attr(type(obj), name)
        if owner is not None and (_user_getter(raw, self.trusted_prefix) or raw is value):
            # a property whose getter is the user's (traced, its reads guarded), or a class
            # attribute: the class's own entry
            self.guard(DICT, owner.__dict__, name, raw, f"{owner.__name__}.{name}", where)
            own = getattr(obj, "__dict__", None)
            if type(own) is dict and raw is value:
                self.guard(DICT, own, name, _MISSING, f"{text}.__dict__[{name!r}]", where)
        elif isinstance(value, types.MethodType):  # a classmethod: bound anew on each read
            self._refuse_bound(text, name, where)
        else:
            # a dict read where one holds it (a Python module's, an object's own, a Module's
            # _parameters/_buffers/_modules): ~0.1 us a check, where getattr through
            # Module.__getattr__ costs ~1 us
            holder = _holder(obj, name) if owner is None else None
            if holder is not None:
                self.guard(DICT, holder, name, value, f"{text}.{name}", where)
            else:
                self.guard(ATTR, obj, name, value, f"{text}.{name}", where)

    def _refuse_bound(self, text: str, name: str, where: str) -> None:
        self.refuse(f"reads {text}.{name} ({where}): a replay can't guard a bound method")

    def guard_method(self, obj, name: str, method, loaded, where: str) -> None:
        """LOAD_METHOD found `method` on type(obj), not in obj's own dict."""
        if not self.external(obj) or immutable(obj):
            return
        text = self.name_of(obj, loaded)
        if isinstance(obj, Tensor):
            self.guard_meta(obj, text, where)
            return
        if self._rooted(obj, f"reads .{name} of", where):
            return
        cls = type(obj)
        if not cls.__flags__ & _HEAPTYPE:
            return  # a builtin type's methods can't be replaced
        self.guard(ATTR, cls, name, method, f"{cls.__name__}.{name}", where)
        own = getattr(obj, "__dict__", None)
        if type(own) is dict:
            self.guard(DICT, own, name, _MISSING, f"{text}.__dict__[{name!r}]", where)


def _class_attr(cls, name: str) -> tuple:
    """(the class in cls's MRO whose dict holds `name`, that entry), or (None, None)."""
    for klass in cls.__mro__:
        found = klass.__dict__.get(name, _MISSING)
        if found is not _MISSING:
            return klass, found
    return None, None


def _holder(obj, name: str):
    """The dict `obj.<name>` is read from, when a plain dict holds it, else None."""
    own = getattr(obj, "__dict__", None)
    if type(own) is not dict:
        return None
    if name in own:
        return own
    if isinstance(obj, Module) and type(obj).__getattr__ is Module.__getattr__:
        for store in ("_parameters", "_buffers", "_modules"):
            held = own.get(store)
            if type(held) in (dict, collections.OrderedDict) and name in held:
                return held
    return None


def _user_getter(raw, trusted_prefix: str) -> bool:
    getter = raw.fget if isinstance(raw, property) else None
    return isinstance(getter, types.FunctionType) and not getter.__code__.co_filename.startswith(
        trusted_prefix
    )


class _FrameWatch:
    """The local trace function of one user frame: the rules, opcode by opcode."""

    __slots__ = ("watch", "code", "pending")

    def __init__(self, watch: Watch, code: _Code) -> None:
        self.watch = watch
        self.code = code
        self.pending = None  # what to do with the stack top at this frame's next opcode

    def __call__(self, frame, event, arg):
        watch = self.watch
        if watch.refusal is not None or not watch._installed:
            return None
        try:
            if event == "opcode":
                self.opcode(frame)
            elif event == "exception" and not issubclass(arg[0], (StopIteration, GeneratorExit)):
                where = self.code.where.get(frame.f_lasti, "?")
                watch.refuse(
                    f"{self.code.name} raises {arg[0].__name__} ({where}): a replay can't "
                    "raise or handle exceptions"
                )
        except Exception as error:  # the watcher must never disturb the call
            watch.refuse(f"the watcher failed ({type(error).__name__}: {error})")
        return self

    def opcode(self, frame) -> None:
        if self.pending is not None:
            pending, self.pending = self.pending, None
            pending[0](self, frame, *pending[1:])
        op, oparg, argval, loaded = self.code.ops[frame.f_lasti]
        if op in _HARMLESS:
            return
        rule = _RULES.get(op)
        if rule is None:
            where = self.code.where[frame.f_lasti]
            self.watch.refuse(f"unsupported Python ({op}) at {where}")
        else:
            rule(self, frame, oparg, argval, loaded)

    def where(self, frame) -> str:
        return self.code.where[frame.f_lasti]

    def refuse(self, frame, what: str, why: str = "") -> None:
        why = why or "a replay needs a forward without side effects"
        self.watch.refuse(f"{self.code.name} {what} ({self.where(frame)}): {why}")

    # ---- results, read at the next opcode ----

    def _made_fresh(self, frame) -> None:
        self.watch.fresh(_peek(frame, 0))

    def _attr_read(self, frame, obj, name, loaded, where) -> None:
        self.watch.guard_attr(obj, name, _peek(frame, 0), loaded, where)

    def _method_read(self, frame, obj, name, loaded, where) -> None:
        method, bound = _peek(frame, 1), _peek(frame, 0)
        if method is _NULL:  # found on the object itself: an attribute read
            self.watch.guard_attr(obj, name, bound, loaded, where)
        else:
            self.watch.guard_method(obj, name, method, loaded, where)

    def _item_read(self, frame, container, key, loaded, where) -> None:
        text = f"{self.watch.name_of(container, loaded)}[{key!r}]"
        self.watch.guard(ITEM, container, key, _peek(frame, 0), text, where)

    def _call_result(self, frame, args, constructing) -> None:
        result = _peek(frame, 0)
        if constructing:
            self.watch._constructing.pop()
        if all(result is not a for a in args):
            self.watch.fresh(result)

    def _generator_result(self, frame) -> None:
        result = _peek(frame, 0)
        if inspect.isgenerator(result) and inspect.getgeneratorstate(result) == "GEN_CREATED":
            self.watch.fresh(result)

    # ---- the rules ----

    def load_global(self, frame, oparg, name, loaded) -> None:
        where = self.where(frame)
        value = frame.f_globals.get(name, _MISSING)
        if value is not _MISSING:
            self.watch.guard(DICT, frame.f_globals, name, value, f"G[{name!r}]", where)
            return
        self.watch.guard(DICT, frame.f_globals, name, _MISSING, f"G[{name!r}]", where)
        value = frame.f_builtins.get(name, _MISSING)
        self.watch.guard(DICT, frame.f_builtins, name, value, f"B[{name!r}]", where)

    def load_deref(self, frame, oparg, name, loaded) -> None:
        if name not in self.code.freevars:
            return  # a cell of this frame's own: a local of the call
        cell = _cell_of(frame, name)
        if id(cell) in self.watch._fresh:
            return  # a cell of a frame of this call (LOAD_CLOSURE): a local of the call
        try:
            value = cell.cell_contents
        except ValueError:
            return  # the read raises NameError: refused at the exception
        self.watch.guard(CELL, cell, None, value, f"cell {name!r}", self.where(frame))

    def store_deref(self, frame, oparg, name, loaded) -> None:
        if name in self.code.freevars:
            self.refuse(frame, f"writes the nonlocal {name}")

    def load_attr(self, frame, oparg, name, loaded) -> None:
        self.pending = (_FrameWatch._attr_read, _peek(frame, 0), name, loaded, self.where(frame))

    def load_method(self, frame, oparg, name, loaded) -> None:
        where = self.where(frame)
        self.pending = (_FrameWatch._method_read, _peek(frame, 0), name, loaded, where)

    def store_attr(self, frame, oparg, name, loaded) -> None:
        obj = _peek(frame, 0)
        if id(obj) not in self.watch._fresh:
            self.refuse(frame, f"writes {self.watch.name_of(obj, loaded)}.{name}")

    def binary_subscr(self, frame, oparg, argval, loaded) -> None:
        container, key = _peek(frame, 1), _peek(frame, 0)
        watch = self.watch
        if isinstance(container, Tensor):
            if watch.external(container):
                watch.guard_meta(container, watch.name_of(container, None), self.where(frame))
            return
        if not watch.external(container) or immutable(container):
            return
        if isinstance(container, dict) and key not in container:
            if hasattr(type(container), "__missing__"):  # a defaultdict's read is a write
                self.refuse(frame, f"reads a missing key of {watch.name_of(container, None)}")
                return
        if not _is_container(container):
            slot = getattr(type(container), "__getitem__", None)
            user = isinstance(slot, types.FunctionType) and not self._trusted(slot)
            if user:
                return  # its __getitem__ is the user's Python: traced, its reads guarded
        if type(container) is list and type(key) is slice:
            watch.guard_items(container, watch.name_of(container, None), self.where(frame))
        elif _is_scalar(key):
            self.pending = (_FrameWatch._item_read, container, key, None, self.where(frame))
        else:
            self.refuse(
                frame,
                f"indexes {type(container).__name__} by {type(key).__name__}",
                "a replay can only guard items with constant keys",
            )

    def _trusted(self, function) -> bool:
        return function.__code__.co_filename.startswith(self.watch.trusted_prefix)

    def store_subscr(self, frame, oparg, argval, loaded) -> None:
        self._write_item(frame, _peek(frame, 1), "writes an item of")

    def delete_subscr(self, frame, oparg, argval, loaded) -> None:
        self._write_item(frame, _peek(frame, 1), "deletes an item of")

    def _write_item(self, frame, container, what: str) -> None:
        if id(container) not in self.watch._fresh and not isinstance(container, Tensor):
            self.refuse(frame, f"{what} {self.watch.name_of(container, None)}")

    def delete_attr(self, frame, oparg, name, loaded) -> None:
        obj = _peek(frame, 0)
        if id(obj) not in self.watch._fresh:
            self.refuse(frame, f"deletes {self.watch.name_of(obj, loaded)}.{name}")

    def refused(self, frame, oparg, argval, loaded) -> None:
        op = self.code.ops[frame.f_lasti][0]
        self.refuse(frame, _REFUSED[op].format(argval))

    def build(self, frame, oparg, argval, loaded) -> None:
        self.pending = (_FrameWatch._made_fresh,)

    def iterate(self, frame, oparg, argval, loaded) -> None:
        """GET_ITER, UNPACK_*: the iterable on the top is read whole."""
        self._read_whole(frame, _peek(frame, 0), loaded)

    def _read_whole(self, frame, obj, loaded) -> None:
        """`obj` is read whole (iterated, measured, compared): its items become a guard."""
        watch = self.watch
        if isinstance(obj, (tuple, frozenset)) or not watch.external(obj) or immutable(obj):
            return  # a tuple's items are fixed: what they hold is read (and guarded) apart
        kind = type(obj)
        if _is_container(obj) or isinstance(obj, Tensor):
            watch.guard_items(obj, watch.name_of(obj, loaded), self.where(frame))
        elif kind in _ITERATORS or inspect.isgenerator(obj):
            self.refuse(frame, f"advances a {kind.__name__} made before the call")
        elif not _python_slot(kind, "__iter__"):
            self.refuse(frame, f"iterates a {kind.__name__}", "a replay can't see what it reads")

    def _read_arg(self, frame, arg) -> None:
        """An argument of a pure C call: read whole if it is a container (len, sum, list...)."""
        if _is_container(arg) or isinstance(arg, Tensor):
            self._read_whole(frame, arg, None)
        elif type(arg) in _ITERATORS or inspect.isgenerator(arg):
            self._read_whole(frame, arg, None)  # advanced by the call: it must be the call's

    def contains(self, frame, oparg, argval, loaded) -> None:
        container = _peek(frame, 0)
        if isinstance(container, Tensor):
            self._value_read(frame, "`in` a tensor")
        elif not _python_slot(type(container), "__contains__"):
            self._read_whole(frame, container, loaded)

    def extend(self, frame, oparg, argval, loaded) -> None:
        """LIST_EXTEND, SET_UPDATE, DICT_UPDATE, DICT_MERGE: read the top into a new display."""
        self._read_whole(frame, _peek(frame, 0), loaded)

    def binary_op(self, frame, oparg, argval, loaded) -> None:
        left, right = _peek(frame, 1), _peek(frame, 0)
        if oparg % _INPLACE == _REMAINDER and isinstance(left, (str, bytes)):
            if _holds_tensor(right):
                self._value_read(frame, "% formatting")
                return
        if oparg >= _INPLACE and _is_container(left) and self.watch.external(left):
            self.refuse(frame, f"updates {self.watch.name_of(left, None)} in place")
            return
        self._operands(frame, (left, right))

    def compare(self, frame, oparg, argval, loaded) -> None:
        self._operands(frame, (_peek(frame, 1), _peek(frame, 0)))

    def _operands(self, frame, operands) -> None:
        for operand in operands:
            if _is_container(operand):
                self._read_whole(frame, operand, None)
            elif not _known_operand(operand):
                what = f"computes with a {type(operand).__module__}.{type(operand).__name__}"
                self.refuse(frame, what, "a replay only redoes tensor and Python arithmetic")
                return

    def format_value(self, frame, oparg, argval, loaded) -> None:
        value = _peek(frame, 1 if oparg & _FORMAT_SPEC else 0)
        if isinstance(value, Tensor):
            self._value_read(frame, "formatted")

    def unary(self, frame, oparg, argval, loaded) -> None:
        self._operands(frame, (_peek(frame, 0),))

    def truth(self, frame, oparg, argval, loaded) -> None:
        """`if obj:`, `not obj`, `and`/`or`: the truth of an external container reads it."""
        obj = _peek(frame, 0)
        kind = type(obj)
        if _is_container(obj):
            self._read_whole(frame, obj, None)
        elif isinstance(obj, Tensor):
            self._value_read(frame, "a branch on it")
        elif not _known_operand(obj) and (
            getattr(kind, "__bool__", None) is not None or getattr(kind, "__len__", None)
        ):
            self.refuse(frame, f"tests the truth of a {kind.__name__}", _UNSEEN)

    def before_with(self, frame, oparg, argval, loaded) -> None:
        manager = _peek(frame, 0)
        if not (
            _python_slot(type(manager), "__enter__") and _python_slot(type(manager), "__exit__")
        ):
            self.refuse(
                frame,
                f"enters a {type(manager).__name__}",
                "a replay can only enter context managers written in Python",
            )

    def call(self, frame, oparg, argval, loaded) -> None:
        first = _peek(frame, oparg + 1)
        if first is _NULL:
            fn = _peek(frame, oparg)
            args = [_peek(frame, i) for i in range(oparg - 1, -1, -1)]
        else:
            fn = first
            args = [_peek(frame, i) for i in range(oparg, -1, -1)]
        self.called(frame, fn, args)

    def call_ex(self, frame, oparg, argval, loaded) -> None:
        has_kwargs = oparg & 1
        fn = _peek(frame, 1 + has_kwargs)
        args = _peek(frame, has_kwargs)
        kwargs = _peek(frame, 0) if has_kwargs else {}
        if type(args) is list:  # f(*some_list): the call makes a tuple of it
            self._read_whole(frame, args, None)
            args = tuple(args)
        if type(args) is not tuple or type(kwargs) is not dict:
            self.refuse(frame, "unpacks arguments from an iterable", "a replay can't see them")
            return
        self.called(frame, fn, [*args, *kwargs.values()])

    # ---- calls ----

    def called(self, frame, fn, args: list) -> None:
        if fn is capture._print or fn is capture._saved.get("print", builtins.print):
            self.refuse(frame, "calls print", "print in forward (a graph break, and output)")
            return
        if self.watch._rooted(fn, "calls", self.where(frame)):
            return
        if isinstance(fn, types.MethodType):
            self.called(frame, fn.__func__, [fn.__self__, *args])
            return
        if isinstance(fn, functools.partial):
            self.called(frame, fn.func, [*fn.args, *args, *fn.keywords.values()])
            return
        if isinstance(fn, types.FunctionType):
            if fn.__name__ in _VALUE_READS and args and isinstance(args[0], Tensor):
                self._value_read(frame, f".{fn.__name__}()")
                return
            # its frame is traced (the user's) or trusted (dyngrad's); a generator it returns
            # unstarted is the call's own (`self.parameters()`, a genexpr)
            self.pending = (_FrameWatch._generator_result,)
            return
        if isinstance(fn, type):
            self._construct(frame, fn, args)
        elif isinstance(fn, _C_CALLABLES):
            self._c_call(frame, fn, args)
        elif _python_slot(type(fn), "__call__"):
            return  # a callable object written in Python: a module, a dyngrad op
        else:
            self.refuse(frame, f"calls {_short(fn)}", _UNSEEN)

    def _value_read(self, frame, how: str) -> None:
        # See Note [Values of tensors]
        self.refuse(frame, f"reads a tensor's value ({how})", "a replay can't follow data")

    def _construct(self, frame, cls, args) -> None:
        if cls in _SCALAR_OF and any(isinstance(a, Tensor) for a in args):
            self._value_read(frame, f"{cls.__name__}()")
        elif cls in _PURE_TYPES:
            for arg in args:
                self._read_arg(frame, arg)
            if cls in _FRESH_RESULT:
                self.pending = (_FrameWatch._call_result, tuple(args), False)
        elif cls.__flags__ & _HEAPTYPE and not issubclass(cls, BaseException):
            self.watch._constructing.append([cls, False])
            self.pending = (_FrameWatch._call_result, tuple(args), True)
        else:
            self.refuse(frame, f"calls {cls.__qualname__}", _UNSEEN)

    def _c_call(self, frame, fn, args) -> None:
        owner = getattr(fn, "__self__", None)
        name = fn.__name__
        if name == "__new__" and (owner in _PURE_TYPES):  # tuple.__new__(cls, ...): namedtuple
            for arg in args:
                self._read_arg(frame, arg)
            return
        if isinstance(owner, types.ModuleType) or (
            owner is None and not hasattr(fn, "__objclass__")
        ):
            module = owner.__name__ if owner is not None else getattr(fn, "__module__", None)
            self._module_call(frame, module, name, fn, args)
            return
        if owner is None or isinstance(
            fn, (types.MethodDescriptorType, types.WrapperDescriptorType)
        ):
            cls = fn.__objclass__
            receiver = args[0] if args else _NULL
            args = args[1:]
        else:
            receiver, cls = owner, type(owner)
        self._method_call(frame, cls, receiver, name, args)

    def _module_call(self, frame, module, name, fn, args) -> None:
        if module == "builtins" and name in _PURE_BUILTINS:
            self._builtin_call(frame, name, args)
        elif module in _PURE_MODULES and name not in _MUTATING_OPERATOR:
            for arg in args:
                self._read_arg(frame, arg)
        else:
            self.refuse(frame, f"calls {module}.{name}", _UNSEEN)

    def _builtin_call(self, frame, name, args) -> None:
        watch = self.watch
        if name in _TRUTH_OF_ITEMS and any(_holds_tensor(a) for a in args):
            self._value_read(frame, f"{name}() tests their truth")
            return
        if name in ("getattr", "hasattr"):
            if len(args) >= 2 and type(args[1]) is str:
                value = getattr(args[0], args[1], _MISSING)
                watch.guard_attr(args[0], args[1], value, None, self.where(frame))
            return
        if name == "next":
            if args and id(args[0]) not in watch._fresh:
                self.refuse(frame, "advances an iterator made before the call")
            return
        if name not in ("isinstance", "issubclass", "callable", "hash"):
            for arg in args:
                self._read_arg(frame, arg)
        if name in _FRESH_BUILTINS:
            self.pending = (_FrameWatch._call_result, tuple(args), False)

    def _method_call(self, frame, cls, receiver, name, args) -> None:
        watch = self.watch
        base = next((c for c in _CONTAINERS if issubclass(cls, c)), None)
        if base is not None:
            if name in _WRITES[base]:
                if id(receiver) not in watch._fresh:
                    what = watch.name_of(receiver, None)
                    self.refuse(
                        frame, f"calls {what}.{name}() on a {base.__name__} made before the call"
                    )
                    return
            elif base is dict and name == "get" and args and _is_scalar(args[0]):
                # one key's read: its item (absent or not), not the whole dict
                if watch.external(receiver):
                    text = f"{watch.name_of(receiver, None)}[{args[0]!r}]"
                    value = receiver.get(args[0], _MISSING)
                    watch.guard(ITEM, receiver, args[0], value, text, self.where(frame))
                args = args[1:]
            elif name in _READS[base]:
                self._read_whole(frame, receiver, None)
            else:
                self.refuse(frame, f"calls {base.__name__}.{name}", _UNSEEN)
                return
            for arg in args:
                self._read_arg(frame, arg)
            if name == "copy" or name in ("keys", "values", "items"):
                self.pending = (_FrameWatch._call_result, (receiver, *args), False)
        elif cls in (str, bytes) and any(_holds_tensor(a) for a in args):
            self._value_read(frame, f"{cls.__name__}.{name}()")  # "{}".format(t): its values
        elif cls in _IMMUTABLE_TYPES or (cls is object and name in ("__init__", "__new__")):
            for arg in args:
                self._read_arg(frame, arg)
        else:
            self.refuse(frame, f"calls {cls.__name__}.{name}", _UNSEEN)


def _cell_of(frame, name: str):
    """The closure cell of the free variable `name` of `frame`'s function."""
    code = frame.f_code
    index = code.co_freevars.index(name)
    function = _function_of(frame)
    if function is not None and function.__closure__ is not None:
        return function.__closure__[index]
    raise _UnreadableError(f"no closure for {name}")


def _function_of(frame):
    iframe = _read_pointer(id(frame) + 24).value
    pointer = _InterpreterFrame.from_address(iframe).f_func
    return ctypes.cast(pointer, ctypes.py_object).value if pointer else None


_RULES = {
    "LOAD_GLOBAL": _FrameWatch.load_global,
    "LOAD_DEREF": _FrameWatch.load_deref,
    "STORE_DEREF": _FrameWatch.store_deref,
    "DELETE_DEREF": _FrameWatch.store_deref,
    "LOAD_ATTR": _FrameWatch.load_attr,
    "LOAD_METHOD": _FrameWatch.load_method,
    "STORE_ATTR": _FrameWatch.store_attr,
    "DELETE_ATTR": _FrameWatch.delete_attr,
    "BINARY_SUBSCR": _FrameWatch.binary_subscr,
    "STORE_SUBSCR": _FrameWatch.store_subscr,
    "DELETE_SUBSCR": _FrameWatch.delete_subscr,
    "GET_ITER": _FrameWatch.iterate,
    "UNPACK_SEQUENCE": _FrameWatch.iterate,
    "UNPACK_EX": _FrameWatch.iterate,
    "CONTAINS_OP": _FrameWatch.contains,
    "LIST_EXTEND": _FrameWatch.extend,
    "SET_UPDATE": _FrameWatch.extend,
    "DICT_UPDATE": _FrameWatch.extend,
    "DICT_MERGE": _FrameWatch.extend,
    "BINARY_OP": _FrameWatch.binary_op,
    "COMPARE_OP": _FrameWatch.compare,
    "FORMAT_VALUE": _FrameWatch.format_value,
    "UNARY_POSITIVE": _FrameWatch.unary,
    "UNARY_NEGATIVE": _FrameWatch.unary,
    "UNARY_INVERT": _FrameWatch.unary,
    "BEFORE_WITH": _FrameWatch.before_with,
    "CALL": _FrameWatch.call,
    "GET_YIELD_FROM_ITER": _FrameWatch.iterate,
    **{op: _FrameWatch.truth for op in _TRUTH},
    "CALL_FUNCTION_EX": _FrameWatch.call_ex,
    **{op: _FrameWatch.build for op in _BUILDS},
    **{op: _FrameWatch.refused for op in _REFUSED},
}


def tensors_read(guards) -> set:
    """The ids of the tensors the watched Python reached through guarded reads (a parameter
    read as `self.w`, a tensor in a global or a closure cell): a replay may use them, as they
    are guarded to be the same objects with the same metadata."""
    found = set()
    for kind, obj, _key, expected, *_ in guards:
        if kind == META:
            found.add(id(obj))
        elif isinstance(expected, Tensor):
            found.add(id(expected))
    return found
