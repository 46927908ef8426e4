"""A pickle interpreter for untrusted checkpoints: it calls only what it is allowed to."""

from __future__ import annotations

import pickle
import struct
from collections import Counter, OrderedDict

__all__ = ["RestrictedUnpickler"]

# Note [Untrusted pickles]
# `pickle.Unpickler` runs a file's opcodes with all of Python's powers: GLOBAL imports any
# name, REDUCE calls it, BUILD sets attributes on whatever object is on the stack, SETITEM and
# APPEND mutate it. An allowlist in `find_class` closes only the first door: BUILD on an
# allowed global (a dtype, a class, a storage type) changes that object for every later load
# in the process. So checkpoints are read by this interpreter instead (as PyTorch's
# `weights_only` unpickler does), which knows only the opcodes that build data and
#   - resolves names through `find_class`, the subclass's allowlist;
#   - calls (REDUCE, NEWOBJ) only through `call` / `new_object`, which check each callable's
#     arguments and return objects made for this load;
#   - mutates (APPEND(S), SETITEM(S), ADDITEMS, BUILD) only objects this load made, and BUILD
#     only through `build`, which takes the state each type really takes;
#   - refuses the rest: INST/OBJ, EXT1-4, text persistent ids, out-of-band buffers, and the
#     text opcodes of protocols 0 and 1 (torch.save writes protocol 2 and up).
# It never recurses and never reads past the data, so a hostile file gets an error, not a
# RecursionError, a hang or a huge allocation.

_MAPPINGS = (dict, OrderedDict, Counter)
_MAX_TUPLE_DEPTH = 200
_FIELDS = {fmt: struct.Struct(fmt) for fmt in ("<B", "<H", "<i", "<I", "<Q", ">d")}


# ---- handlers for families of opcodes that differ only in a constant or a field's size -----


def _push(value):
    return lambda self: self.stack.append(value)


def _push_int(fmt):
    return lambda self: self.stack.append(self._unpack(fmt))


def _long(fmt):
    def handler(self):
        n = self._unpack(fmt)
        self.stack.append(int.from_bytes(self._read(n), "little", signed=True))

    return handler


def _text(fmt):
    def handler(self):
        self.stack.append(str(self._read(self._unpack(fmt)), "utf-8", "surrogatepass"))

    return handler


def _bytes(fmt, kind=bytes):
    def handler(self):
        value = kind(self._read(self._unpack(fmt)))
        self.stack.append(self.made_here(value) if kind is bytearray else value)

    return handler


def _empty(kind):
    return lambda self: self.stack.append(self.made_here(kind()))


def _tuple(n):
    def handler(self):
        items = self.stack[len(self.stack) - n :] if n else []
        if len(items) != n:
            raise self.corrupt("the stack is shorter than a tuple opcode needs")
        del self.stack[len(self.stack) - n :]
        self._push_tuple(items)

    return handler


def _get(fmt):
    def handler(self):
        index = self._unpack(fmt)
        if index not in self.memo:
            raise self.corrupt(f"memo entry {index} is read before it is written")
        self.stack.append(self.memo[index])

    return handler


def _put(fmt):
    def handler(self):
        self._remember(self._unpack(fmt))

    return handler


class RestrictedUnpickler:
    """Runs a pickle's opcodes; subclasses say which names exist and what calling them does."""

    def __init__(self, data: bytes, name: str) -> None:
        self.data, self.pos, self.name = data, 0, name
        self.stack: list = []
        self.marks: list[list] = []
        self.memo: dict[int, object] = {}
        self.memo_keys: dict[int, list[int]] = {}  # id of an object made here -> memo keys
        self.made: dict[int, object] = {}  # id -> object, kept alive so an id is never reused
        self.depth: dict[int, int] = {}  # id -> nesting depth, for tuples of tuples

    # ---- what a subclass allows ------------------------------------------------------------

    def find_class(self, module: str, name: str):
        raise self.refused(f"Unsupported global: GLOBAL {module}.{name}")

    def call(self, func, args: tuple):
        raise self.refused(f"Trying to call reduce for unrecognized function {self.describe(func)}")

    def new_object(self, cls, args: tuple):
        raise self.refused(
            f"Can only create new object for nn.Parameter, but got {self.describe(cls)}"
        )

    def build(self, obj, state):
        raise self.refused(f"Can only build OrderedDict, but got {self.describe(obj)}")

    def persistent_load(self, pid):
        raise self.refused("unsupported persistent id encountered")

    def describe(self, obj) -> str:
        """How an error names `obj` (never its repr: a tensor's could be huge to format)."""
        return type(obj).__name__

    # ---- errors ------------------------------------------------------------------------------

    def refused(self, what: str) -> pickle.UnpicklingError:
        return pickle.UnpicklingError(f"Weights only load failed. {self.name}: {what}")

    def corrupt(self, what: str) -> pickle.UnpicklingError:
        return pickle.UnpicklingError(f"Weights only load failed. {self.name} is corrupt: {what}")

    # ---- running -----------------------------------------------------------------------------

    def load(self):
        """The object the pickle describes."""
        try:
            return self._run()
        except (
            IndexError,
            KeyError,
            TypeError,
            ValueError,
            OverflowError,
            struct.error,
        ) as exc:  # a stack underflow, an unhashable key, bad arguments to an allowed call
            raise self.corrupt(f"{type(exc).__name__}: {exc}") from None

    def _run(self):
        handlers, data = self._HANDLERS, self.data
        while True:
            if self.pos >= len(data):
                raise self.corrupt("the pickle is truncated")
            code = data[self.pos]
            self.pos += 1
            handler = handlers.get(code)
            if handler is None:
                import pickletools  # for the error's opcode name only (it compiles regexes)

                op = pickletools.code2op.get(chr(code))
                raise self.refused(f"Unsupported operand {code} ({op.name if op else 'unknown'})")
            if handler(self):
                if self.marks:
                    raise self.corrupt("a MARK is never closed")
                return self.stack.pop()

    def made_here(self, obj):
        self.made[id(obj)] = obj
        return obj

    def owns(self, obj) -> bool:
        return self.made.get(id(obj)) is obj

    def _read(self, n: int) -> bytes:
        end = self.pos + n
        if n < 0 or end > len(self.data):
            raise self.corrupt("the pickle is truncated")
        chunk = self.data[self.pos : end]
        self.pos = end
        return chunk

    def _readline(self) -> str:
        end = self.data.find(b"\n", self.pos)
        if end < 0:
            raise self.corrupt("the pickle is truncated")
        line = self.data[self.pos : end]
        self.pos = end + 1
        return line.decode("utf-8")

    def _unpack(self, fmt: str):
        field = _FIELDS[fmt]
        return field.unpack(self._read(field.size))[0]

    def _pop_mark(self) -> list:
        if not self.marks:
            raise self.corrupt("an opcode needs a MARK that is not there")
        items, self.stack = self.stack, self.marks.pop()
        return items

    def _target(self, kinds: tuple, opcode: str):
        target = self.stack[-1]
        if type(target) not in kinds or not self.owns(target):
            names = ", ".join(k.__name__ for k in kinds)
            raise self.refused(
                f"Can only {opcode} to a {names} this file made, but got {self.describe(target)}"
            )
        return target

    # ---- opcodes: framing and constants ------------------------------------------------------

    def _proto(self):
        protocol = self._read(1)[0]
        if not 2 <= protocol <= 5:
            raise self.refused(f"pickle protocol {protocol} is not supported")

    def _frame(self):
        if self._unpack("<Q") > len(self.data) - self.pos:
            raise self.corrupt("the pickle is truncated")

    def _stop(self):
        return True

    def _mark(self):
        self.marks.append(self.stack)
        self.stack = []

    def _binfloat(self):
        self.stack.append(self._unpack(">d"))

    # ---- opcodes: containers -----------------------------------------------------------------

    def _tuple_mark(self):
        self._push_tuple(self._pop_mark())

    def _push_tuple(self, items: list):
        # CPython hashes nested tuples by C recursion, without a depth check: a 1 MB pickle of
        # TUPLE1 opcodes used as a dict key would crash the process (not raise). So depth is
        # counted as tuples are made, and bounded.
        inner = [self.depth.get(id(x), 1) for x in items if type(x) is tuple]
        value = tuple(items)
        if inner:
            depth = 1 + max(inner)
            if depth > _MAX_TUPLE_DEPTH:
                raise self.corrupt(f"tuples nested more than {_MAX_TUPLE_DEPTH} deep")
            self.depth[id(value)] = depth
            self.made_here(value)
        self.stack.append(value)

    def _frozenset(self):
        items = frozenset(self._pop_mark())  # before naming self.stack: _pop_mark replaces it
        self.stack.append(items)

    def _append(self):
        item = self.stack.pop()
        self._target((list,), "append").append(item)

    def _appends(self):
        items = self._pop_mark()
        self._target((list,), "append").extend(items)

    def _setitem(self):
        value, key = self.stack.pop(), self.stack.pop()
        self._target(_MAPPINGS, "SETITEM")[key] = value

    def _setitems(self):
        items = self._pop_mark()
        if len(items) % 2:
            raise self.corrupt("SETITEMS has a key without a value")
        target = self._target(_MAPPINGS, "SETITEMS")
        for i in range(0, len(items), 2):
            target[items[i]] = items[i + 1]

    def _additems(self):
        items = self._pop_mark()
        self._target((set,), "ADDITEMS").update(items)

    def _pop(self):
        if self.stack:
            self.stack.pop()
        else:
            self._pop_mark()

    def _pop_to_mark(self):
        self._pop_mark()

    def _dup(self):
        self.stack.append(self.stack[-1])

    # ---- opcodes: memo -----------------------------------------------------------------------

    def _memoize(self):
        self._remember(len(self.memo))

    def _remember(self, key: int) -> None:
        value = self.memo[key] = self.stack[-1]
        if self.owns(value):  # a BUILD may replace it: know where the memo holds it
            self.memo_keys.setdefault(id(value), []).append(key)

    # ---- opcodes: names, calls, state --------------------------------------------------------

    def _global(self):
        module = self._readline()
        self.stack.append(self.find_class(module, self._readline()))

    def _stack_global(self):
        name, module = self.stack.pop(), self.stack.pop()
        if type(module) is not str or type(name) is not str:
            raise self.corrupt("STACK_GLOBAL needs two strings")
        self.stack.append(self.find_class(module, name))

    def _reduce(self):
        args = self.stack.pop()
        if type(args) is not tuple:
            raise self.corrupt(f"REDUCE needs a tuple of arguments, got {type(args).__name__}")
        self.stack[-1] = self.made_here(self.call(self.stack[-1], args))

    def _newobj(self):
        args, cls = self.stack.pop(), self.stack.pop()
        if type(args) is not tuple:
            raise self.corrupt(f"NEWOBJ needs a tuple of arguments, got {type(args).__name__}")
        self.stack.append(self.made_here(self.new_object(cls, args)))

    def _newobj_ex(self):
        kwargs = self.stack.pop()
        if type(kwargs) is not dict or kwargs:
            raise self.refused("NEWOBJ_EX with keyword arguments")
        self._newobj()

    def _build(self):
        state = self.stack.pop()
        obj = self.stack[-1]
        if not self.owns(obj):
            raise self.refused(f"BUILD on {self.describe(obj)}, which this file did not make")
        built = self.made_here(self.build(obj, state))
        if built is not obj:  # an immutable value rebuilt: the memo's references follow
            self.stack[-1] = built
            for key in self.memo_keys.pop(id(obj), ()):
                if self.memo.get(key) is obj:
                    self.memo[key] = built

    def _binpersid(self):
        self.stack.append(self.persistent_load(self.stack.pop()))

    _HANDLERS = {
        pickle.PROTO[0]: _proto,
        pickle.FRAME[0]: _frame,
        pickle.STOP[0]: _stop,
        pickle.MARK[0]: _mark,
        pickle.POP[0]: _pop,
        pickle.POP_MARK[0]: _pop_to_mark,
        pickle.DUP[0]: _dup,
        pickle.NONE[0]: _push(None),
        pickle.NEWTRUE[0]: _push(True),
        pickle.NEWFALSE[0]: _push(False),
        pickle.BININT[0]: _push_int("<i"),
        pickle.BININT1[0]: _push_int("<B"),
        pickle.BININT2[0]: _push_int("<H"),
        pickle.LONG1[0]: _long("<B"),
        pickle.LONG4[0]: _long("<I"),
        pickle.BINFLOAT[0]: _binfloat,
        pickle.BINUNICODE[0]: _text("<I"),
        pickle.SHORT_BINUNICODE[0]: _text("<B"),
        pickle.BINUNICODE8[0]: _text("<Q"),
        pickle.BINBYTES[0]: _bytes("<I"),
        pickle.SHORT_BINBYTES[0]: _bytes("<B"),
        pickle.BINBYTES8[0]: _bytes("<Q"),
        pickle.BYTEARRAY8[0]: _bytes("<Q", bytearray),
        pickle.EMPTY_TUPLE[0]: _tuple(0),
        pickle.TUPLE1[0]: _tuple(1),
        pickle.TUPLE2[0]: _tuple(2),
        pickle.TUPLE3[0]: _tuple(3),
        pickle.TUPLE[0]: _tuple_mark,
        pickle.EMPTY_LIST[0]: _empty(list),
        pickle.APPEND[0]: _append,
        pickle.APPENDS[0]: _appends,
        pickle.EMPTY_DICT[0]: _empty(dict),
        pickle.SETITEM[0]: _setitem,
        pickle.SETITEMS[0]: _setitems,
        pickle.EMPTY_SET[0]: _empty(set),
        pickle.ADDITEMS[0]: _additems,
        pickle.FROZENSET[0]: _frozenset,
        pickle.BINGET[0]: _get("<B"),
        pickle.LONG_BINGET[0]: _get("<I"),
        pickle.BINPUT[0]: _put("<B"),
        pickle.LONG_BINPUT[0]: _put("<I"),
        pickle.MEMOIZE[0]: _memoize,
        pickle.GLOBAL[0]: _global,
        pickle.STACK_GLOBAL[0]: _stack_global,
        pickle.REDUCE[0]: _reduce,
        pickle.NEWOBJ[0]: _newobj,
        pickle.NEWOBJ_EX[0]: _newobj_ex,
        pickle.BUILD[0]: _build,
        pickle.BINPERSID[0]: _binpersid,
    }
