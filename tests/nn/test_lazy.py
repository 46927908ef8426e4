"""Lazy modules against torch: shapes read from the first call, the same initial numbers
after the same seed, the class they become, their state dicts, and the errors of touching an
uninitialized parameter."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import dyngrad
from dyngrad.nn.parameter import is_lazy

R = np.random.default_rng(6)

CASES = [
    ("LazyLinear(3)", (2, 5)),
    ("LazyLinear(4, bias=False)", (2, 3, 6)),
    ("LazyConv1d(4, 3, padding=1)", (2, 3, 7)),
    ("LazyConv1d(4, 2, groups=2, bias=False)", (4, 6)),
    ("LazyConv2d(4, 3, stride=2)", (1, 2, 6, 6)),
    ("LazyConv3d(2, 2)", (1, 3, 3, 4, 4)),
    ("LazyConvTranspose1d(2, 3, groups=2)", (2, 4, 5)),
    ("LazyConvTranspose2d(3, 2, stride=2, output_padding=1)", (1, 2, 3, 3)),
    ("LazyConvTranspose3d(2, 2, stride=(1, 2, 1))", (1, 3, 2, 3, 2)),
    ("LazyBatchNorm1d()", (4, 3)),
    ("LazyBatchNorm2d(momentum=None, affine=False)", (2, 3, 2, 2)),
    ("LazyBatchNorm3d(track_running_stats=False)", (2, 2, 2, 2, 2)),
    ("LazyInstanceNorm1d()", (2, 3, 5)),
    ("LazyInstanceNorm2d(affine=False)", (2, 3, 4, 4)),
    ("LazyInstanceNorm3d(track_running_stats=False)", (2, 2, 3, 3, 3)),
]


def _state(module) -> dict:
    return {k: (v if is_lazy(v) else v.detach().numpy()) for k, v in module.state_dict().items()}


def _run(lib, make, shape, dtype="float32"):
    lib.manual_seed(7)
    module = eval("lib.nn." + make, {"lib": lib})
    before = (repr(module), type(module).__name__, list(module.state_dict()))
    x = lib.tensor(np.random.default_rng(0).standard_normal(shape), dtype=getattr(lib, dtype))
    out = module(x)
    after = (repr(module), type(module).__name__)
    return module, before, after, out.detach().numpy(), _state(module)


@pytest.mark.parametrize(("make", "shape"), CASES)
def test_lazy_modules_become_torchs_layers(torch, make, shape):
    ours = _run(dyngrad, make, shape)
    theirs = _run(torch, make, shape)
    assert ours[1] == theirs[1]
    assert ours[2] == theirs[2]
    np.testing.assert_allclose(ours[3], theirs[3], rtol=1e-5, atol=1e-6)
    assert list(ours[4]) == list(theirs[4])
    params = dict(ours[0].named_parameters())
    for key, value in ours[4].items():  # the same initial numbers: bit for bit
        if key in params:
            np.testing.assert_array_equal(value, theirs[4][key], err_msg=key)
        else:  # running statistics, updated by the call
            np.testing.assert_allclose(value, theirs[4][key], rtol=1e-6, atol=1e-8, err_msg=key)
    assert not any(is_lazy(t) for t in ours[4].values())


@pytest.mark.parametrize(("make", "shape"), CASES[:1] + CASES[8:9])
def test_lazy_modules_keep_their_dtype(torch, make, shape):
    make = make[:-1] + (", " if make[-2] != "(" else "") + "dtype=lib.float64)"
    ours, theirs = _run(dyngrad, make, shape, "float64"), _run(torch, make, shape, "float64")
    for key, value in ours[4].items():
        if key != "num_batches_tracked":
            assert value.dtype == theirs[4][key].dtype == np.float64
        np.testing.assert_allclose(value, theirs[4][key], rtol=1e-12)


def test_uninitialized_parameters_in_the_state_dict(torch):
    for lib in (dyngrad, torch):
        state = lib.nn.LazyBatchNorm1d().state_dict()
        assert [type(v).__name__ for v in state.values()] == [
            "UninitializedParameter",
            "UninitializedParameter",
            "UninitializedBuffer",
            "UninitializedBuffer",
            "Tensor",
        ]
        assert repr(state["weight"]) == "<UninitializedParameter>"
        assert isinstance(state["weight"], lib.nn.UninitializedParameter)
        assert isinstance(state["running_mean"], lib.nn.UninitializedBuffer)
        assert lib.nn.parameter.is_lazy(state["weight"])
        assert isinstance(state["weight"], lib.nn.Parameter)


def test_load_state_dict_materializes_a_lazy_module(torch):
    results = []
    for lib in (dyngrad, torch):
        lib.manual_seed(1)
        source = lib.nn.Linear(4, 3)
        lazy = lib.nn.LazyLinear(3)
        lazy.load_state_dict(source.state_dict())
        assert not lazy.has_uninitialized_params()
        assert type(lazy).__name__ == "LazyLinear"  # until its first call
        out = lazy(lib.ones(2, 4))
        results.append((type(lazy).__name__, out.detach().numpy()))
    assert results[0][0] == results[1][0] == "Linear"
    np.testing.assert_array_equal(results[0][1], results[1][1])


def test_an_optimizer_made_before_the_first_call_trains_the_parameters(torch):
    results = []
    for lib in (dyngrad, torch):
        lib.manual_seed(2)
        model = lib.nn.Sequential(lib.nn.LazyLinear(4), lib.nn.ReLU(), lib.nn.LazyLinear(1))
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        x = lib.tensor(np.random.default_rng(1).standard_normal((8, 5)), dtype=lib.float32)
        for _ in range(3):
            opt.zero_grad()
            model(x).pow(2).mean().backward()
            opt.step()
        results.append([p.detach().numpy() for p in model.parameters()])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)


def _error(lib, code):
    lazy = lib.nn.LazyLinear(3)
    try:
        eval(code, {"lib": lib, "p": lazy.weight, "m": lazy})
    except Exception as exc:  # noqa: BLE001 - the error itself is compared
        return type(exc).__name__, str(exc).splitlines()[0].split(". ")[0]
    return None


@pytest.mark.parametrize(
    "code",
    [
        "p.shape",
        "p.share_memory_()",
        "m(lib.ones(2, 3, 4, 5).reshape(0))",  # (an empty input still has a last dim: 0)
        "lib.nn.LazyConv2d(4, 3)(lib.ones(5))",
        "lib.nn.LazyConv2d(4, 3, groups=2)(lib.ones(1, 3, 5, 5))",
        "lib.nn.modules.lazy.LazyModuleMixin.initialize_parameters(m)",
    ],
)
def test_errors_of_uninitialized_parameters_match_torch(torch, code):
    assert _error(dyngrad, code) == _error(torch, code)


@pytest.mark.parametrize("code", ["p + 1", "lib.nn.functional.linear(lib.ones(2, 3), p)"])
def test_using_an_uninitialized_parameter_raises_value_error(torch, code):
    # PyTorch names the function it was called through; dyngrad says "an operation"
    ours, theirs = _error(dyngrad, code), _error(torch, code)
    assert ours[0] == theirs[0] == "ValueError"
    assert ours[1].startswith("Attempted to use an uninitialized parameter in")
    assert theirs[1].startswith("Attempted to use an uninitialized parameter in")


def test_uninitialized_parameters_tell_what_torch_allows(torch):
    for lib in (dyngrad, torch):
        p = lib.nn.UninitializedParameter(dtype=lib.float64)
        assert (p.dtype, p.requires_grad, p.is_leaf, p.size()) == (lib.float64, True, True, (0,))
        assert str(p.device) == "cpu"
        b = lib.nn.UninitializedBuffer()
        assert (b.dtype, b.requires_grad) == (lib.float32, False)
        p.materialize((2, 3))
        assert type(p) is lib.nn.Parameter and tuple(p.shape) == (2, 3)
        assert p.dtype == lib.float64
        b.materialize((4,), dtype=lib.float16)
        assert type(b) is lib.Tensor and b.dtype == lib.float16


def test_a_lazy_module_deep_copies_uninitialized(torch):
    for lib in (dyngrad, torch):
        lazy = lib.nn.LazyLinear(3)
        twin = copy.deepcopy(lazy)
        assert type(twin.weight).__name__ == "UninitializedParameter"
        assert twin.weight is not lazy.weight
        twin(lib.ones(1, 2))
        assert type(twin).__name__ == "Linear" and type(lazy).__name__ == "LazyLinear"


def test_a_lazy_module_converts_before_its_first_call(torch):
    results = []
    for lib in (dyngrad, torch):
        lib.manual_seed(3)
        model = lib.nn.Sequential(lib.nn.LazyLinear(3), lib.nn.LazyBatchNorm1d())
        model = model.double().to("cpu")
        assert model[0].weight.dtype == lib.float64
        assert type(model[1].running_mean).__name__ == "UninitializedBuffer"
        out = model(lib.tensor(np.random.default_rng(2).standard_normal((4, 2))))
        state = [(k, str(v.dtype), v.numpy()) for k, v in model.state_dict().items()]
        results.append((out.detach().numpy(), state))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12, atol=1e-12)
    for (k, d, a), (j, e, b) in zip(results[0][1], results[1][1]):
        assert (k, d) == (j, e)
        np.testing.assert_allclose(a, b, rtol=1e-12, err_msg=k)


def _custom_lazy(lib):
    class LazyScale(lib.nn.modules.lazy.LazyModuleMixin, lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = lib.nn.UninitializedParameter()
            self.shift = lib.nn.UninitializedBuffer()

        def initialize_parameters(self, input, *, power=1):
            self.scale.materialize(input.shape[-1:])
            self.shift.materialize((power,))
            with lib.no_grad():
                self.scale.fill_(2.0)
                self.shift.fill_(0.5)

        def forward(self, input, *, power=1):
            return input * self.scale + self.shift.sum()

    return LazyScale()


def test_a_user_lazy_module_initializes_from_its_call(torch):
    results = []
    for lib in (dyngrad, torch):
        m = _custom_lazy(lib)
        assert m.has_uninitialized_params()
        assert list(m.state_dict()) == ["scale", "shift"]
        out = m(lib.ones(2, 3), power=4)
        assert not m.has_uninitialized_params()
        assert type(m).__name__ == "LazyScale"  # no cls_to_become: it stays itself
        assert not m._forward_pre_hooks
        results.append((out.detach().numpy(), tuple(m.shift.shape)))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    assert results[0][1] == results[1][1] == (4,)


def test_a_lazy_module_that_leaves_a_parameter_uninitialized_raises(torch):
    messages = []
    for lib in (dyngrad, torch):

        class Half(lib.nn.modules.lazy.LazyModuleMixin, lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.a = lib.nn.UninitializedParameter()
                self.b = lib.nn.UninitializedParameter()

            def initialize_parameters(self, input):
                self.a.materialize((1,))

        with pytest.raises(RuntimeError) as info:
            Half()(lib.ones(1))
        messages.append(str(info.value).splitlines()[0])
    assert messages[0] == messages[1] == "module Half has not been fully initialized"


def test_a_lazy_module_pickles_uninitialized(torch):
    import pickle

    for lib in (dyngrad, torch):
        twin = pickle.loads(pickle.dumps(lib.nn.LazyLinear(3)))
        assert repr(twin.weight) == "<UninitializedParameter>"
        twin(lib.ones(2, 5))
        assert repr(twin) == "Linear(in_features=5, out_features=3, bias=True)"
