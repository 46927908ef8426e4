"""Module's registration model, traversal, modes, conversions, printing and errors."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import dyngrad
from dyngrad import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.act = nn.ReLU()
        self.block = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4))
        self.scale = nn.Parameter(dyngrad.ones(1))
        self.register_buffer("steps", dyngrad.zeros(1))
        self.register_buffer("cache", dyngrad.zeros(2), persistent=False)

    def forward(self, x):
        return self.block(self.act(self.fc1(x))) * self.scale


def test_assignment_registers_parameters_buffers_and_modules():
    net = Net()
    assert list(net._parameters) == ["scale"]
    assert list(net._buffers) == ["steps", "cache"]
    assert list(net._modules) == ["fc1", "act", "block"]
    assert [n for n, _ in net.named_parameters()] == [
        "scale",
        "fc1.weight",
        "fc1.bias",
        "block.0.weight",
        "block.0.bias",
        "block.1.weight",
        "block.1.bias",
    ]
    assert [n for n, _ in net.named_buffers()] == [
        "steps",
        "cache",
        "block.1.running_mean",
        "block.1.running_var",
        "block.1.num_batches_tracked",
    ]
    assert [n for n, _ in net.named_modules()] == ["", "fc1", "act", "block", "block.0", "block.1"]
    assert [n for n, _ in net.named_children()] == ["fc1", "act", "block"]
    assert len(list(net.parameters(recurse=False))) == 1
    assert [n for n, _ in net.named_parameters(prefix="model", recurse=False)] == ["model.scale"]


def test_matches_torch_names(torch):
    def build(nn):
        seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
        return nn.ModuleDict({"a": seq, "b": nn.ModuleList([seq[0], nn.Linear(2, 1)])})

    ours, theirs = build(nn), build(torch.nn)
    for method in ("named_parameters", "named_modules", "named_buffers"):
        assert [n for n, _ in getattr(ours, method)()] == [n for n, _ in getattr(theirs, method)()]
    assert [n for n, _ in ours.named_parameters(remove_duplicate=False)] == [
        n for n, _ in theirs.named_parameters(remove_duplicate=False)
    ]


def test_reassigning_and_deleting_members():
    net = Net()
    net.fc1 = None
    assert net._modules["fc1"] is None
    net.scale = None
    assert net._parameters["scale"] is None
    net.steps = dyngrad.ones(1)
    assert net._buffers["steps"] is net.steps
    del net.block
    assert "block" not in net._modules
    with pytest.raises(AttributeError, match="'Net' object has no attribute 'block'"):
        net.block
    net.plain = 3
    assert net.__dict__["plain"] == 3
    net.plain = nn.Linear(1, 1)  # a module replaces the plain attribute
    assert "plain" not in net.__dict__ and "plain" in net._modules


@pytest.mark.parametrize(
    "stmt,exc,text",
    [
        (
            "m.weight = 1",
            TypeError,
            "cannot assign 'int' as parameter 'weight' (torch.nn.Parameter or None expected)",
        ),
        (
            "m.weight = t.zeros(1)",
            TypeError,
            "cannot assign 'torch.FloatTensor' as parameter 'weight' (torch.nn.Parameter or None "
            "expected)",
        ),
        (
            "m.register_buffer('b', t.zeros(1)); m.b = 1",
            TypeError,
            "cannot assign 'int' as buffer 'b' (torch.nn.Buffer, torch.Tensor or None expected)",
        ),
        (
            "m.sub = t.nn.ReLU(); m.sub = 1",
            TypeError,
            "cannot assign 'int' as child module 'sub' (torch.nn.Module or None expected)",
        ),
        ("m.register_buffer('a.b', None)", KeyError, 'buffer name can\'t contain "."'),
        ("m.register_buffer('', None)", KeyError, 'buffer name can\'t be empty string ""'),
        ("m.register_buffer('weight', None)", KeyError, "attribute 'weight' already exists"),
        (
            "m.register_buffer('x', 1)",
            TypeError,
            "cannot assign 'int' object to buffer 'x' (torch Tensor or None required)",
        ),
        (
            "m.register_parameter('x', t.zeros(1))",
            TypeError,
            "cannot assign 'torch.FloatTensor' object to parameter 'x' (torch.nn.Parameter or None "
            "required)",
        ),
        ("m.add_module('a.b', None)", KeyError, 'module name can\'t contain ".", got: a.b'),
        ("m.add_module('x', 1)", TypeError, "int is not a Module subclass"),
        ("m.get_submodule('foo')", AttributeError, "Linear has no attribute `foo`"),
        ("m.get_parameter('foo')", AttributeError, "Linear has no attribute `foo`"),
        ("m.train('a')", ValueError, "training mode is expected to be boolean"),
        (
            "m.to(t.int64)",
            TypeError,
            "nn.Module.to only accepts floating point or complex dtypes, but got desired "
            "dtype=torch.int64",
        ),
        ("m.foo", AttributeError, "'Linear' object has no attribute 'foo'"),
        (
            "t.nn.Module()(1)",
            NotImplementedError,
            'Module [Module] is missing the required "forward" function',
        ),
        (
            "t.nn.Module(foo=1)",
            TypeError,
            "Module.__init__() got an unexpected keyword argument 'foo'",
        ),
    ],
)
def test_errors_match_torch(stmt, exc, text, torch):
    for t in (torch, dyngrad):
        env = {"t": t, "m": t.nn.Linear(2, 2)}
        with pytest.raises(exc) as info:
            exec(stmt, env)
        message = info.value.args[0]
        assert message == text, (t.__name__, message)


def test_assignment_before_init_raises():
    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(dyngrad.zeros(1))

    with pytest.raises(
        AttributeError,
        match=r"cannot assign parameters before "
        r"Module.__init__\(\) call",
    ):
        Early()


def test_non_leaf_parameter_is_rejected():
    param = nn.Parameter(dyngrad.zeros(1))
    param._grad_fn = (dyngrad.ones(1, requires_grad=True) * 2).grad_fn  # as if computed
    with pytest.raises(ValueError, match="Cannot assign non-leaf Tensor to parameter 'w'"):
        nn.Linear(1, 1).register_parameter("w", param)


def test_get_submodule_parameter_buffer():
    net = Net()
    assert net.get_submodule("block.0") is net.block[0]
    assert net.get_parameter("block.1.weight") is net.block[1].weight
    assert net.get_buffer("block.1.running_mean") is net.block[1].running_mean
    with pytest.raises(AttributeError, match="`act` is not an nn.Parameter"):
        net.get_parameter("act")


def test_train_eval_recurse():
    net = Net()
    assert net.eval() is net
    assert not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())


def test_zero_grad_and_requires_grad():
    net = Net()
    net(dyngrad.randn(5, 3)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not p.grad.numpy().any() for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())


def test_apply_visits_children_first():
    order = []
    Net().apply(lambda m: order.append(type(m).__name__))
    assert order == ["Linear", "ReLU", "Linear", "BatchNorm1d", "Sequential", "Net"]


def test_to_double_keeps_parameter_objects_and_integer_buffers():
    net = Net()
    weight = net.fc1.weight
    net(dyngrad.randn(4, 3)).sum().backward()
    assert net.double() is net
    assert net.fc1.weight is weight and weight.dtype is dyngrad.float64
    assert weight.grad.dtype is dyngrad.float64
    assert net.block[1].num_batches_tracked.dtype is dyngrad.int64
    assert net.block[1].running_mean.dtype is dyngrad.float64
    net.float()
    assert weight.dtype is dyngrad.float32
    net.to(dtype=dyngrad.float64)
    assert net.steps.dtype is dyngrad.float64
    net.to("cpu")
    net.half()
    assert weight.dtype is dyngrad.float16


def test_dir_lists_members_but_no_digit_names():
    seq = nn.Sequential(nn.Linear(1, 1))
    names = dir(Net())
    assert {"fc1", "scale", "steps", "forward"} <= set(names)
    assert not any(n[0].isdigit() for n in dir(seq))


def test_deepcopy_copies_parameters():
    net = Net()
    clone = copy.deepcopy(net)
    assert clone.fc1.weight is not net.fc1.weight
    assert isinstance(clone.fc1.weight, nn.Parameter) and clone.fc1.weight.requires_grad
    np.testing.assert_array_equal(
        clone.fc1.weight.detach().numpy(), net.fc1.weight.detach().numpy()
    )


def test_print_matches_torch(torch):
    def build(nn):
        class Custom(nn.Module):
            def __init__(self):
                super().__init__()
                self.body = nn.Sequential(
                    nn.Conv2d(1, 2, 3, stride=2, padding="same" if False else 1), nn.MaxPool2d(2)
                )
                self.heads = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.Tanh()])
                self.extra = nn.ModuleDict({"gru": nn.GRU(2, 3, batch_first=True)})
                self.none = None

            def extra_repr(self):
                return "custom=1"

        return Custom()

    assert repr(build(nn)) == repr(build(torch.nn))


@pytest.mark.parametrize(
    "source",
    [
        "nn.Conv2d(5, 4, (3, 2), stride=2, padding=1, dilation=2, bias=False, "
        "padding_mode='reflect')",
        "nn.Conv2d(5, 4, 3, padding='same')",
        "nn.Conv1d(5, 4, 3)",
        "nn.ConvTranspose2d(4, 4, 3, stride=2, output_padding=1, groups=2)",
        "nn.MaxPool2d((2, 3), stride=1, padding=1, dilation=2, ceil_mode=True)",
        "nn.MaxPool1d(3)",
        "nn.AvgPool2d((2, 1), 1, 0, True, False, 3)",
        "nn.AvgPool1d(3)",
        "nn.AdaptiveAvgPool2d((None, 2))",
        "nn.AdaptiveAvgPool2d(3)",
        "nn.BatchNorm1d(3, momentum=None)",
        "nn.BatchNorm2d(3, affine=False)",
        "nn.BatchNorm1d(3, bias=False)",
        "nn.LayerNorm([3, 4], elementwise_affine=False)",
        "nn.GroupNorm(2, 4, bias=False)",
        "nn.Dropout2d(0.3, True)",
        "nn.Embedding(5, 3, max_norm=1.0, scale_grad_by_freq=True)",
        "nn.Embedding(5, 3, padding_idx=-2)",
        "nn.RNN(3, 4, nonlinearity='relu', bias=False)",
        "nn.GRU(3, 4, 2, bidirectional=True, dropout=0.5)",
        "nn.LSTMCell(3, 4)",
        "nn.RNNCell(3, 4, nonlinearity='relu')",
        "nn.Flatten(0)",
        "nn.Unflatten(1, [2, 3])",
        "nn.Bilinear(2, 3, 4)",
        "nn.Identity()",
        "nn.MultiheadAttention(4, 2, kdim=3)",
        "nn.TransformerEncoderLayer(4, 2, 8, activation=nn.GELU())",
        "nn.ParameterList([nn.Parameter(t.zeros(2)), t.zeros(3, 2, dtype=t.float64)])",
        "nn.ParameterDict({'b': t.zeros(3), 'a': nn.Parameter(t.zeros(2))})",
        "nn.CrossEntropyLoss(weight=t.ones(3))",
        "nn.Sequential()",
        "nn.ModuleList()",
    ],
)
def test_layer_repr_matches_torch(source, torch):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = eval(source, {"nn": torch.nn, "t": torch})
    ours = eval(source, {"nn": nn, "t": dyngrad})
    assert repr(ours) == repr(theirs)


def test_parameter_shares_array_and_version_counter():
    t = dyngrad.zeros(2)
    p = nn.Parameter(t)
    assert p.requires_grad and p.data_ptr() == t.data_ptr()
    t.add_(1)
    assert p._version == 1
    assert repr(p) == "Parameter containing:\ntensor([1., 1.], requires_grad=True)"
    assert type(p * 2) is dyngrad.Tensor
    assert nn.Parameter().shape == (0,)
    with pytest.raises(RuntimeError, match="Only Tensors of floating point"):
        nn.Parameter(dyngrad.zeros(2, dtype=dyngrad.int64))
    frozen = nn.Parameter(dyngrad.zeros(2, dtype=dyngrad.int64), requires_grad=False)
    assert not frozen.requires_grad


def test_buffer_assignment_registers_non_persistent_buffer():
    m = nn.Module()
    m.stats = nn.Buffer(dyngrad.zeros(1), persistent=False)
    assert "stats" in m._buffers and "stats" in m._non_persistent_buffers_set
    assert list(m.state_dict()) == []
