"""The watcher of the user's Python during a capture call: refusals and guards
(src/dyngrad/_dynamo/python_guards.py, Note [Watching the Python])."""

import collections
import dataclasses
import math
import random
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import dyngrad
from dyngrad._dynamo import python_guards
from dyngrad._dynamo.python_guards import Watch, check, describe

pytestmark = pytest.mark.skipif(
    sys.implementation.name != "cpython" or sys.version_info[:2] != (3, 11),
    reason="the watcher reads CPython 3.11's frames",
)

BENCH = Path(__file__).resolve().parents[2] / "bench"


def nothing_made(obj):
    return False


def watch(fn, *args, is_made=nothing_made):
    with Watch(is_made) as watcher:
        result = fn(*args)
    return watcher, result


# ---- globals, builtins, closures ----------------------------------------------------------

SCALE = 3
OFFSET = 0.5


def scaled(x):
    return x * SCALE + OFFSET


def test_global_read_is_guarded_and_a_change_fails_the_guard():
    global SCALE
    watcher, result = watch(scaled, 2)
    assert result == 6.5 and watcher.refusal is None
    assert check(watcher.guards) is None
    assert any(describe(g).startswith("G['SCALE'] == 3") for g in watcher.guards)
    try:
        SCALE = 4
        failure = check(watcher.guards)
        assert failure.startswith("G['SCALE'] changed (test_python_guards.py:")
        SCALE = int("3")  # an equal int (another object): scalars compare by value
        assert check(watcher.guards) is None
        SCALE = 3.0  # equal but a float: the type is part of the guard
        assert check(watcher.guards) is not None
    finally:
        SCALE = 3


def summed(values):
    return sum(values) + len(values)


def test_builtin_read_guards_that_the_globals_still_lack_the_name():
    watcher, _ = watch(summed, (1, 2))
    texts = [describe(g) for g in watcher.guards]
    assert any(t.startswith("G['sum'] absent") for t in texts)
    assert any(t.startswith("B['sum'] is <built-in sum>") for t in texts)
    globals()["sum"] = lambda values: 0  # a global shadowing the builtin
    try:
        assert check(watcher.guards).startswith("G['sum'] changed")
    finally:
        del globals()["sum"]
    assert check(watcher.guards) is None


def test_deduplicates_a_global_read_in_a_loop():
    def loop(n):
        total = 0
        for _ in range(n):
            total += SCALE
        return total

    watcher, result = watch(loop, 32)
    assert result == 96 and watcher.refusal is None
    assert sum(describe(g).startswith("G['SCALE']") for g in watcher.guards) == 1


def make_scaler(scale):
    def scaler(x):
        return x * scale

    return scaler


def test_closure_cell_change_fails_the_guard():
    scaler = make_scaler(0.5)
    watcher, result = watch(scaler, 4)
    assert result == 2.0 and watcher.refusal is None
    assert any(describe(g).startswith("cell 'scale' == 0.5") for g in watcher.guards)
    assert check(watcher.guards) is None
    scaler.__closure__[0].cell_contents = 0.25
    assert check(watcher.guards).startswith("cell 'scale' changed")


def test_a_nonlocal_write_is_refused():
    count = 0

    def bump():
        nonlocal count
        count += 1
        return count

    watcher, _ = watch(bump)
    assert watcher.refusal.startswith("bump writes the nonlocal count (test_python_guards.py:")


# ---- attributes and items -------------------------------------------------------------------


class Scaled(dyngrad.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = 2.0
        self.fc = dyngrad.nn.Linear(3, 2)

    def forward(self, x):
        return self.fc(x) * self.scale


class Plain:
    def __init__(self):
        self.factor = 3

    def apply(self, x):
        return x * self.factor


def test_module_attribute_change_fails_the_guard():
    model = Scaled()
    x = dyngrad.ones(1, 3)
    watcher, _ = watch(model, x, is_made=lambda o: isinstance(o, dyngrad.Tensor) and o is not x)
    assert watcher.refusal is None
    texts = [describe(g) for g in watcher.guards]
    assert any(t.startswith("self.fc is <Linear") for t in texts)
    assert any(t.startswith("self.scale == 2.0") for t in texts)
    assert check(watcher.guards) is None
    model.scale = 3.0
    assert check(watcher.guards).startswith("self.scale changed")
    model.scale = 2.0
    model.fc = dyngrad.nn.Linear(3, 2)
    assert check(watcher.guards).startswith("self.fc changed")


def test_plain_object_attribute_and_method_are_guarded():
    obj = Plain()
    watcher, result = watch(lambda: obj.apply(2))
    assert result == 6 and watcher.refusal is None
    assert check(watcher.guards) is None
    obj.factor = 4
    assert check(watcher.guards).startswith("cell 'obj'.factor changed")
    obj.factor = 3
    Plain.apply, original = (lambda self, x: 0), Plain.apply
    try:
        watcher, _ = watch(lambda: obj.apply(1))
        assert watcher.refusal is None and check(watcher.guards) is None
    finally:
        Plain.apply = original
    assert check(watcher.guards).startswith("Plain.apply changed")


def test_what_an_argument_holds_is_refused_a_module_argument_is_a_root():
    # the next call passes other objects: guards on these would re-read the old ones
    watcher, _ = watch(Plain().apply, 2)
    assert watcher.refusal.startswith("reads .factor of the argument self (test_python_guards.py:")
    watcher, _ = watch(lambda table: table["a"], {"a": 1})
    assert watcher.refusal.startswith("reads <dict>['a'] from the argument table")
    watcher, _ = watch(lambda fn: fn(1), abs)
    assert watcher.refusal.startswith("calls the argument fn")
    watcher, _ = watch(lambda pair: pair[0] + len(pair), (1, 2))  # a tuple of scalars: fine
    assert watcher.refusal is None
    model = Scaled()
    x = dyngrad.ones(1, 3)
    watcher, _ = watch(model, x, is_made=lambda o: isinstance(o, dyngrad.Tensor) and o is not x)
    assert watcher.refusal is None and watcher.roots == [model]


class Caching(dyngrad.nn.Module):
    def forward(self, x):
        self.cache = x
        return x


def test_writing_an_attribute_is_refused():
    watcher, _ = watch(Caching(), 1)
    assert watcher.refusal.startswith("forward writes self.cache (test_python_guards.py:")
    assert watcher.refusal.endswith("a replay needs a forward without side effects")


TABLE = {"a": 1, "b": 2}


def test_item_of_an_external_dict_is_guarded():
    watcher, result = watch(lambda: TABLE["a"] + 1)
    assert result == 2 and watcher.refusal is None
    assert any(describe(g).startswith("G['TABLE']['a'] == 1") for g in watcher.guards)
    TABLE["a"] = 5
    try:
        assert check(watcher.guards).startswith("G['TABLE']['a'] changed")
    finally:
        TABLE["a"] = 1


def test_writing_an_item_of_an_external_dict_is_refused():
    def write():
        TABLE["c"] = 3

    watcher, _ = watch(write)
    TABLE.pop("c", None)
    assert watcher.refusal.startswith("write writes an item of G['TABLE']")


# ---- containers -----------------------------------------------------------------------------

ITEMS = [1, 2, 3]


def test_appending_to_an_external_list_is_refused_to_a_local_list_is_fine():
    def external():
        ITEMS.append(1)

    def local():
        out = []
        out.append(1)
        out.extend(ITEMS)
        return out

    watcher, _ = watch(external)
    ITEMS.pop()
    assert watcher.refusal.startswith("external calls G['ITEMS'].append() on a list made before")
    watcher, result = watch(local)
    assert result == [1, 1, 2, 3] and watcher.refusal is None


def test_iterating_an_external_list_guards_its_items():
    def total():
        return sum(v for v in ITEMS) + max([v for v in ITEMS])

    watcher, result = watch(total)
    assert result == 9 and watcher.refusal is None
    assert check(watcher.guards) is None
    ITEMS.append(4)
    try:
        assert check(watcher.guards).startswith("G['ITEMS'] changed")
    finally:
        ITEMS.pop()
    assert check(watcher.guards) is None
    ITEMS[0] = 1.0  # equal but another type
    try:
        assert check(watcher.guards) is not None
    finally:
        ITEMS[0] = 1


def test_comprehensions_genexprs_and_nested_calls_are_watched():
    def inner(v):
        return v * SCALE

    def outer(n):
        squares = [inner(i) for i in range(n)]
        pairs = {i: s for i, s in enumerate(squares)}
        a, b = (pairs[i] for i in (0, 1))
        return a + b + sum(s for s in squares if s > OFFSET)

    watcher, result = watch(outer, 3)
    assert result == 3 + 9 and watcher.refusal is None
    texts = [describe(g) for g in watcher.guards]
    assert any(t.startswith("G['SCALE'] == 3") for t in texts)  # read in the nested call
    assert any(t.startswith("G['OFFSET'] == 0.5") for t in texts)  # read in the genexpr
    assert check(watcher.guards) is None


def test_a_class_made_in_the_call_may_set_its_attributes():
    def make():
        obj = Plain()
        obj.factor = 5
        return obj.apply(2)

    watcher, result = watch(make)
    assert result == 10 and watcher.refusal is None


def test_the_truth_of_an_external_list_is_a_read_of_it():
    watcher, result = watch(lambda: 1 if ITEMS else 0)
    assert result == 1 and watcher.refusal is None
    ITEMS.clear()
    try:
        assert check(watcher.guards).startswith("G['ITEMS'] changed")
    finally:
        ITEMS.extend([1, 2, 3])


def test_dict_get_guards_the_one_key():
    def lookup():
        return TABLE.get("a"), TABLE.get("z", 0)

    watcher, result = watch(lookup)
    assert result == (1, 0) and watcher.refusal is None
    TABLE["b"] = 7  # another key: not read
    try:
        assert check(watcher.guards) is None
        TABLE["z"] = 1
        assert check(watcher.guards).startswith("G['TABLE']['z'] changed")
    finally:
        TABLE.pop("z", None)
        TABLE["b"] = 2


class Temperature:
    ratio = 2

    def __init__(self):
        self.celsius = 10

    @property
    def kelvin(self):
        return self.celsius + 273

    def doubled(self):
        return self.celsius * self.ratio


def test_user_properties_methods_and_class_attributes_are_guarded():
    obj, name = Temperature(), "celsius"
    watcher, result = watch(lambda: obj.kelvin + obj.doubled() + getattr(obj, name))
    assert result == 283 + 20 + 10 and watcher.refusal is None
    texts = [describe(g) for g in watcher.guards]
    assert any(t.startswith("Temperature.kelvin is <property") for t in texts)
    assert any(t.startswith("Temperature.doubled is <function Temperature.doubled>") for t in texts)
    assert any(t.startswith("Temperature.ratio == 2") for t in texts)
    assert check(watcher.guards) is None
    obj.ratio = 3  # an instance attribute now shadows the class's
    assert check(watcher.guards).startswith("cell 'obj'.__dict__['ratio'] changed")
    del obj.ratio
    obj.celsius = 11
    assert check(watcher.guards).startswith("cell 'obj'.celsius changed")


def test_new_objects_of_the_call_are_free_to_change():
    Point = collections.namedtuple("Point", "x y")

    @dataclasses.dataclass
    class Pair:
        a: int
        b: int = 2

    def build():
        pair = Pair(1)
        pair.b = 3
        table = {"k": [1]}
        table["k"].append(2)
        return Point(pair.a, pair.b).y + len(table["k"])

    watcher, result = watch(build)
    assert result == 5 and watcher.refusal is None


COUNTS = collections.defaultdict(int, {"a": 1})
ORDERED = collections.OrderedDict(a=1)


def test_dict_subclasses_are_containers_and_a_defaultdict_miss_is_a_write():
    watcher, result = watch(lambda: [k for k in ORDERED] + [COUNTS["a"]])
    assert result == ["a", 1] and watcher.refusal is None
    ORDERED["b"] = 2
    try:
        assert check(watcher.guards).startswith("G['ORDERED'] changed")
    finally:
        del ORDERED["b"]
    watcher, _ = watch(lambda: COUNTS["missing"])
    COUNTS.pop("missing", None)
    assert watcher.refusal.startswith("<lambda> reads a missing key of G['COUNTS']")


def test_star_args_and_kwargs_are_the_call_own():
    def collect(*args, **kwargs):
        kwargs["seen"] = len(args)
        return kwargs.get("scale", 1) * args[0]

    watcher, result = watch(lambda: collect(2, scale=3))
    assert result == 6 and watcher.refusal is None


def gen_items():
    yield from ITEMS


STARTED = gen_items()


def test_generators_of_the_call_run_one_made_before_is_refused():
    watcher, result = watch(lambda: list(gen_items()) + [max(*ITEMS)])
    assert result == [1, 2, 3, 3] and watcher.refusal is None
    watcher, _ = watch(lambda: next(STARTED))
    assert watcher.refusal.startswith("<lambda> advances an iterator made before the call")


@pytest.mark.parametrize(
    ("source", "refusal"),
    [
        ("def f():\n    global G\n    G = 1\n", "f writes the global G"),
        ("def f():\n    import os\n    return os.sep\n", "f imports os"),
        ("def f():\n    class C:\n        pass\n", "f defines a class"),
        ("def f():\n    return ARRAY * 2\n", "f computes with a numpy.ndarray"),
        ("def f():\n    del TABLE['a']\n", "f deletes an item of G['TABLE']"),
    ],
)
def test_side_effects_and_unseen_computations_are_refused(source, refusal):
    scope = {"ARRAY": np.ones(2), "TABLE": {"a": 1}}
    exec(compile(source, "model.py", "exec"), scope)
    watcher, _ = watch(scope["f"])
    assert watcher.refusal.startswith(f"{refusal} (model.py:")


# ---- calls ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fn", "refusal"),
    [
        (lambda: print("hi"), "<lambda> calls print"),
        (lambda: time.time(), "<lambda> calls time.time"),
        (lambda: random.random(), "<lambda> calls "),
        (lambda: id(ITEMS), "<lambda> calls builtins.id"),
        (lambda: np.sqrt(2.0), "<lambda> calls "),
    ],
)
def test_impure_calls_are_refused(fn, refusal, capsys):
    watcher, _ = watch(fn)
    assert watcher.refusal is not None and watcher.refusal.startswith(refusal)
    capsys.readouterr()


def test_pure_calls_are_not_refused():
    def pure(x):
        parts = "a,b".split(",")
        return math.sqrt(x) + abs(-x) + len(parts) + round(x / 3, 2) + isinstance(x, int)

    watcher, _ = watch(pure, 4)
    assert watcher.refusal is None


@pytest.mark.parametrize(
    ("fn", "refusal"),
    [
        (lambda t: t.sum().item(), "<lambda> reads a tensor's value (.item())"),
        (lambda t: 1 if t.sum() > 0 else 0, "<lambda> reads a tensor's value (a branch on it)"),
        (lambda t: int(t.sum()), "<lambda> reads a tensor's value (int())"),
        (lambda t: f"{t}", "<lambda> reads a tensor's value (formatted)"),
        (lambda t: max(t[0], t[1]), "<lambda> reads a tensor's value (max() tests their truth)"),
        (lambda t: "%s" % t, "<lambda> reads a tensor's value (% formatting)"),  # noqa: UP031
        (lambda t: "{}".format(t), "<lambda> reads a tensor's value (str.format())"),  # noqa: UP032
        (lambda t: 1.0 in t, "<lambda> reads a tensor's value (`in` a tensor)"),
        (lambda t: dyngrad.equal(t, t), "<lambda> reads a tensor's value (.equal())"),
    ],
)
def test_python_on_a_tensor_value_is_refused(fn, refusal):
    watcher, _ = watch(fn, dyngrad.ones(2), is_made=lambda o: isinstance(o, dyngrad.Tensor))
    assert watcher.refusal.startswith(refusal + " (test_python_guards.py:")


def test_an_exception_raised_and_caught_is_refused():
    def caught(x):
        try:
            return int("no")
        except ValueError:
            return x

    watcher, result = watch(caught, 1)
    assert result == 1
    assert watcher.refusal.startswith("caught raises ValueError (test_python_guards.py:")


# ---- tensors --------------------------------------------------------------------------------

WEIGHT = dyngrad.ones(3, 4)


def test_a_global_tensor_replaced_fails_the_identity_guard():
    global WEIGHT

    def project(x):
        return x @ WEIGHT

    x = dyngrad.ones(2, 3)
    watcher, _ = watch(project, x, is_made=lambda o: isinstance(o, dyngrad.Tensor) and o is not x)
    assert watcher.refusal is None and check(watcher.guards) is None
    saved = WEIGHT
    try:
        WEIGHT = dyngrad.ones(3, 5)
        assert check(watcher.guards).startswith("G['WEIGHT'] changed")
    finally:
        WEIGHT = saved


class Projection(dyngrad.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = dyngrad.nn.Parameter(dyngrad.ones(3, 2))

    def forward(self, x):
        return x @ self.w


def test_a_parameter_whose_data_changes_shape_fails_the_meta_guard():
    model = Projection()
    x = dyngrad.ones(4, 3)
    before = {id(model.w), id(x)}
    watcher, _ = watch(
        model, x, is_made=lambda o: isinstance(o, dyngrad.Tensor) and id(o) not in before
    )
    assert watcher.refusal is None
    assert any(describe(g).startswith("tensor meta of self.w (3, 2)") for g in watcher.guards)
    assert check(watcher.guards) is None
    model.w.data = dyngrad.ones(3, 5)
    assert check(watcher.guards).startswith("self.w changed")


class Stack(dyngrad.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = dyngrad.nn.ModuleList([dyngrad.nn.Linear(2, 2) for _ in range(2)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        with dyngrad.no_grad():
            y = x * 2
        return x + y.sum()


def test_module_list_loops_and_no_grad_blocks_are_watched():
    model, x = Stack(), dyngrad.ones(1, 2)
    before = {id(t) for t in (*model.parameters(), x)}
    watcher, _ = watch(
        model, x, is_made=lambda o: isinstance(o, dyngrad.Tensor) and id(o) not in before
    )
    assert watcher.refusal is None
    assert any(describe(g).startswith("self.layers is <ModuleList") for g in watcher.guards)
    assert check(watcher.guards) is None


def corpus_cases():
    sys.path.insert(0, str(Path(__file__).parent))
    try:
        import corpus
    finally:
        sys.path.remove(str(Path(__file__).parent))
    return corpus.load(dyngrad)


@pytest.mark.parametrize("name", sorted(corpus_cases()))
def test_the_compile_corpus_is_watched_to_the_end(name, capsys):
    fn, make = corpus_cases()[name]
    args = make()
    if isinstance(fn, type):
        fn = fn()
    known = list(args) + (list(fn.parameters()) if isinstance(fn, dyngrad.nn.Module) else [])
    before = {id(t) for t in known}
    with Watch(lambda o: isinstance(o, dyngrad.Tensor) and id(o) not in before) as watcher:
        fn(*args)
    capsys.readouterr()
    # every case is understood: clean, or refused where it breaks the graph (a print, a read
    # of a tensor's value)
    refusal = watcher.refusal
    assert refusal is None or " calls print (corpus.py:" in refusal or "tensor's value" in refusal
    assert check(watcher.guards) is None


# ---- installing -----------------------------------------------------------------------------


def test_the_frame_layout_self_test_passes_here():
    assert python_guards._layout_ok()


def test_an_active_tracer_is_refused_and_kept():
    def tracer(*args):
        return None

    sys.settrace(tracer)
    try:
        with Watch(nothing_made) as watcher:
            assert sys.gettrace() is tracer
            scaled(1)
        assert sys.gettrace() is tracer
    finally:
        sys.settrace(None)
    assert watcher.refusal.startswith("a tracer is active")
    assert watcher.guards == []


def test_the_tracer_is_removed_after_the_call():
    with Watch(nothing_made):
        scaled(1)
    assert sys.gettrace() is None


# ---- the benchmark models -------------------------------------------------------------------


@pytest.fixture
def training():
    sys.path.insert(0, str(BENCH))
    try:
        import training

        yield training
    finally:
        sys.path.remove(str(BENCH))


@pytest.mark.parametrize("name", ["simple_mlp", "mini_gpt"])
def test_benchmark_forwards_are_watched_without_refusal(training, name):
    step = getattr(training, name)(dyngrad)
    model = step.model
    if name == "simple_mlp":
        x = dyngrad.randn(16, 20)
    else:
        x = dyngrad.from_numpy(np.random.default_rng(0).integers(0, 128, (8, 64)))
    before = {id(t) for t in (*model.parameters(), *model.buffers(), x)}

    def is_made(obj):  # the lead's trace knows; here: every tensor that was not there before
        return isinstance(obj, dyngrad.Tensor) and id(obj) not in before

    model(x)
    start = time.perf_counter()
    with Watch(is_made) as watcher:
        model(x)
    watched = time.perf_counter() - start
    assert watcher.refusal is None
    assert check(watcher.guards) is None
    start = time.perf_counter()
    for _ in range(200):
        check(watcher.guards)
    each = (time.perf_counter() - start) / 200
    print(
        f"{name}: {len(watcher.guards)} guards, watched call {watched * 1e3:.1f} ms, "
        f"check {each * 1e6:.1f} us"
    )
    assert each < 200e-6
    model.train(False)  # not read by the Python: no guard
    assert check(watcher.guards) is None
    first = next(model.children())
    setattr(model, next(n for n, m in model.named_children() if m is first), dyngrad.nn.Identity())
    assert check(watcher.guards) is not None
