"""Replay (docs/compile.md, Note [Replay]): a compiled call run again from its trace, without
its Python, gives eager's values and gradients bit for bit, and runs the Python instead
whenever something it relied on changed."""

import numpy as np
import pytest

import dyngrad as torch
from dyngrad import nn

F = nn.functional


class MLP(nn.Module):
    def __init__(self, p=0.3):
        super().__init__()
        self.fc1 = nn.Linear(6, 8)
        self.drop = nn.Dropout(p)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(self.drop(torch.relu(self.fc1(x)))).tanh()


def _twins(cls=MLP, **kw):
    torch.manual_seed(1)
    a = cls(**kw)
    b = cls(**kw)
    b.load_state_dict(a.state_dict())
    return a, b


def _train(model, run, xs, seed=7, lr=0.1):
    """Losses, and every parameter's gradient and value after each step."""
    torch.manual_seed(seed)
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    out = []
    for x in xs:
        opt.zero_grad()
        loss = (run(x) ** 2).mean()
        loss.backward()
        grads = [p.grad.numpy().copy() for p in model.parameters()]
        opt.step()
        out.append((loss.item(), grads, [p.detach().numpy().copy() for p in model.parameters()]))
    return out


def _same(a, b):
    assert len(a) == len(b)
    for (la, ga, pa), (lb, gb, pb) in zip(a, b):
        assert la == lb
        assert all(np.array_equal(x, y) for x, y in zip(ga, gb))
        assert all(np.array_equal(x, y) for x, y in zip(pa, pb))


def _inputs(n, shape=(4, 6), seed=3):
    rng = np.random.default_rng(seed)
    return [torch.from_numpy(rng.standard_normal(shape).astype(np.float32)) for _ in range(n)]


@pytest.fixture(autouse=True)
def _fresh():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def test_a_replayed_training_loop_equals_eager_bit_for_bit_dropout_draws_included():
    eager, compiled = _twins()
    run = torch.compile(compiled)
    xs = _inputs(6)
    _same(_train(eager, eager, xs), _train(compiled, run, xs))
    (status,) = torch._dynamo.replay_status(run)
    assert status.refused is None and status.replayed == 5  # the first call traced


def test_replayed_outputs_hang_from_one_compiled_node_over_the_parameters():
    model = MLP()
    run = torch.compile(model)
    x = _inputs(1)[0]
    run(x).sum().backward()  # traced
    out = run(x)  # replayed
    assert torch._dynamo.replay_status(run)[0].replayed == 1
    assert type(out.grad_fn).__name__ == "CompiledFunctionBackward"
    leaves = {id(fn.variable) for fn, _ in out.grad_fn.next_functions if fn is not None}
    assert leaves == {id(p) for p in model.parameters()}
    assert out.grad_fn.captured  # describe/make_dot still open the captured graph


def test_inputs_that_require_grad_get_eager_gradients():
    eager, compiled = _twins(p=0.0)
    run = torch.compile(compiled)
    for x in _inputs(3):
        xa = x.clone().requires_grad_(True)
        xb = x.clone().requires_grad_(True)
        (eager(xa * 2) ** 2).sum().backward()
        (run(xb * 2) ** 2).sum().backward()
        assert np.array_equal(xa.grad.numpy(), xb.grad.numpy())
    assert torch._dynamo.replay_status(run)[0].replayed == 2


def test_module_changes_are_seen_training_flag_attribute_parameter_hook():
    eager, compiled = _twins()
    run = torch.compile(compiled)
    xs = _inputs(3)
    _same(_train(eager, eager, xs), _train(compiled, run, xs))
    for m in (eager, compiled):  # an attribute the module's forward reads
        m.drop.p = 0.6
    _same(_train(eager, eager, xs, seed=2), _train(compiled, run, xs, seed=2))
    for m in (eager, compiled):
        m.eval()
    _same(_train(eager, eager, xs, seed=3), _train(compiled, run, xs, seed=3))
    torch.manual_seed(4)
    w = torch.randn(3, 8)
    with torch.no_grad():
        for m in (eager, compiled):  # a new parameter object
            m.fc2.weight = nn.Parameter(w.clone())
    _same(_train(eager, eager, xs), _train(compiled, run, xs))
    seen = []
    compiled.fc1.register_forward_hook(lambda mod, args, out: seen.append(out.shape))
    run(xs[0])
    assert seen == [torch.Size([4, 8])]  # the hook ran: the Python did, not the trace


def test_frozen_parameter_and_new_shapes_follow_eager():
    eager, compiled = _twins(p=0.0)
    run = torch.compile(compiled)
    xs = _inputs(2)
    _same(_train(eager, eager, xs), _train(compiled, run, xs))
    for m in (eager, compiled):
        m.fc1.weight.requires_grad_(False)

    def frozen_grads(model, runner):
        for x in xs:
            model.zero_grad()
            runner(x).sum().backward()
            yield model.fc1.weight.grad, model.fc2.weight.grad.numpy().copy()

    for (ga, a), (gb, b) in zip(frozen_grads(eager, eager), frozen_grads(compiled, run)):
        assert ga is None and gb is None and np.array_equal(a, b)
    big = _inputs(3, shape=(9, 6))
    assert all(np.array_equal(eager(x).detach().numpy(), run(x).detach().numpy()) for x in big)


def test_two_forwards_before_one_backward_accumulate_as_eager():
    eager, compiled = _twins(p=0.0)
    run = torch.compile(compiled)
    x1, x2 = _inputs(2)
    run(x1).sum().backward()  # traced and used
    for model, runner in ((eager, eager), (compiled, run)):
        model.zero_grad()
        (runner(x1).sum() + runner(x2).sum()).backward()
    for p, q in zip(eager.parameters(), compiled.parameters()):
        assert np.array_equal(p.grad.numpy(), q.grad.numpy())


def test_retain_graph_and_a_second_backward():
    model = MLP(p=0.0)
    run = torch.compile(model)
    x = _inputs(1)[0]
    run(x).sum().backward()
    model.zero_grad()
    loss = run(x).sum()
    loss.backward(retain_graph=True)
    first = model.fc1.weight.grad.numpy().copy()
    loss.backward()
    assert np.allclose(model.fc1.weight.grad.numpy(), 2 * first)
    loss2 = run(x).sum()  # the graph above is still held by `loss`: the Python runs
    loss2.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        loss2.backward()


def test_an_in_place_change_after_the_forward_raises_as_eager():
    model = MLP(p=0.0)
    run = torch.compile(model)
    x = _inputs(1)[0]
    run(x).sum().backward()
    out = run(x)  # replayed: tanh saved its output, which is `out`'s array
    assert torch._dynamo.replay_status(run)[0].replayed == 1
    out.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()
    out = run(x)
    with torch.no_grad():
        model.fc2.weight.add_(1)  # an optimizer step before the backward
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_no_grad_calls_replay_without_a_graph():
    model = MLP(p=0.0).eval()
    run = torch.compile(model)
    xs = _inputs(3)
    with torch.no_grad():
        outs = [run(x) for x in xs]
    assert all(o.grad_fn is None and not o.requires_grad for o in outs)
    assert all(np.array_equal(o.numpy(), model(x).detach().numpy()) for o, x in zip(outs, xs))
    assert torch._dynamo.replay_status(run)[0].replayed == 2


class Reads(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.seen = 0

    def forward(self, x):
        return self.lin(x) * self.seen


@pytest.mark.parametrize(
    "body, reason",
    [
        (lambda self, x: self.lin(x)[0].relu_(), "the in-place op relu on a tensor that"),
        (lambda self, x: self.lin(x) * self.lin(x).sum().item(), "graph breaks"),
        (lambda self, x: self.lin(x) * float(self.lin(x).detach().numpy()[0, 0]), "value was read"),
    ],
)
def test_what_a_replay_cannot_do_again_is_refused_with_its_reason(body, reason):
    class M(Reads):
        forward = body

    run = torch.compile(M())
    x = torch.ones(2, 3)
    run(x)
    run(x)
    (status,) = torch._dynamo.replay_status(run)
    assert status.replayed == 0 and reason in status.refused


def test_the_same_code_compiled_for_two_models_replays_each_with_its_own_parameters():
    a, b = MLP(p=0.0), MLP(p=0.0)
    ra, rb = torch.compile(a), torch.compile(b)
    x = _inputs(1)[0]
    for _ in range(3):
        assert np.array_equal(ra(x).detach().numpy(), a(x).detach().numpy())
        assert np.array_equal(rb(x).detach().numpy(), b(x).detach().numpy())


def test_replay_off_runs_the_python_every_call():
    torch._dynamo.config.replay = False
    try:
        run = torch.compile(MLP())
        x = _inputs(1)[0]
        run(x)
        run(x)
        (status,) = torch._dynamo.replay_status(run)
        assert status.replayed == 0 and status.refused == "replay is off"
    finally:
        torch._dynamo.config.replay = True


SCALE = 2.0


def test_a_function_over_closure_tensors_replays_and_follows_a_changed_global():
    global SCALE
    torch.manual_seed(0)
    w = torch.randn(6, 4, requires_grad=True)
    b = torch.randn(4, requires_grad=True)

    def step(x):
        h = torch.zeros(4, 4)
        for i in range(3):
            h = (x[i] @ w + h @ w[:4] + b).tanh() * SCALE
        return h.sum()

    run = torch.compile(step)
    xs = [torch.randn(3, 4, 6) for _ in range(4)]
    try:
        for k, x in enumerate(xs):
            if k == 2:
                SCALE = 3.0  # a global the Python reads: the next call runs it again
            expected = step(x)
            expected.backward()
            eg = (w.grad.clone(), b.grad.clone())
            w.grad = b.grad = None
            got = run(x)
            got.backward()
            assert got.item() == expected.item()
            assert np.array_equal(w.grad.numpy(), eg[0].numpy())
            assert np.array_equal(b.grad.numpy(), eg[1].numpy())
            w.grad = b.grad = None
    finally:
        SCALE = 2.0
    statuses = torch._dynamo.replay_status(run)
    assert [s.refused for s in statuses] == [None]
    assert statuses[0].replayed == 2  # calls 2 and 4; call 3 saw the new global


def test_a_module_passed_as_an_argument_is_guarded_by_identity():
    a, b = _twins(p=0.0)

    def apply(model, x):
        return model(x) * 2

    run = torch.compile(apply)
    x = _inputs(1)[0]
    for model in (a, a, b, a):
        assert np.array_equal(run(model, x).detach().numpy(), (model(x) * 2).detach().numpy())
    assert torch._dynamo.replay_status(run)[0].replayed >= 1


def test_side_effects_refuse_the_replay_and_run_every_time():
    log = []

    class Logs(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 3)

        def forward(self, x):
            log.append(1)
            return self.lin(x)

    run = torch.compile(Logs())
    for _ in range(3):
        run(torch.ones(2, 3))
    assert len(log) == 3
    (status,) = torch._dynamo.replay_status(run)
    assert status.replayed == 0 and "append" in status.refused


def test_keyword_arguments_replay_by_name():
    def f(x, a=None, b=None):
        return x * 2 + (a if a is not None else 0) - (b if b is not None else 0) * 3

    run = torch.compile(f)
    x, t = _inputs(2)
    for kw in ({"a": t}, {"a": t}, {"b": t}, {"b": t}, {"a": t}):
        assert np.array_equal(run(x, **kw).numpy(), f(x, **kw).numpy())
    assert sum(s.replayed for s in torch._dynamo.replay_status(run)) >= 2


def test_a_module_that_changes_its_state_in_the_call_is_traced_again():
    torch.manual_seed(0)
    model = nn.Sequential(nn.LazyLinear(4), nn.ReLU(), nn.Linear(4, 2))
    run = torch.compile(model)
    for i in range(4):
        x = torch.randn(3, 5)
        assert np.array_equal(run(x).detach().numpy(), model(x).detach().numpy())
        if i == 0:  # the lazy layer made its parameters while the traced call ran
            assert "changed while the call ran" in torch._dynamo.replay_status(run)[0].refused
    assert torch._dynamo.replay_status(run)[0].replayed == 2


@pytest.mark.parametrize(
    "layout",
    [
        lambda y: y.contiguous().view(y.shape[0], -1),
        lambda y: y.clone(memory_format=torch.contiguous_format).view(y.shape[0], -1),
        lambda y: y.reshape(y.shape[0], -1),  # reshape's copy of a strided input
    ],
)
def test_contiguous_copies_of_a_transposed_tensor_replay_and_can_be_viewed(layout):
    # the attention idiom `y.transpose(1, 2).contiguous().view(b, n, d)`: the copy is made
    # contiguous by the op itself, so the replay's copy can be viewed as the traced one was
    def f(x, w):
        return layout((x @ w).transpose(1, 2)).tanh()

    run = torch.compile(f)
    w = torch.randn(4, 5, requires_grad=True)
    for x in _inputs(4, (2, 3, 4)):
        got, want = run(x, w), f(x, w)
        assert got.stride() == want.stride() == (15, 1)
        assert np.array_equal(got.detach().numpy(), want.detach().numpy())
        (gw,) = torch.autograd.grad(got.sum(), w)
        (ew,) = torch.autograd.grad(want.sum(), w)
        assert np.array_equal(gw.numpy(), ew.numpy())
    assert torch._dynamo.replay_status(run)[0].replayed == 3


class ConvBN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4 * 4 * 4, 3)
        self.bn1d = nn.BatchNorm1d(3)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn(self.conv(x))), 2)
        return self.bn1d(self.fc(torch.flatten(x, 1)))


def test_batch_norm_in_training_replays_its_buffer_updates_as_eager():
    # See Note [In-place steps]: num_batches_tracked.add_(1) is written in place on replay,
    # the running statistics by the kernel, each counted on its version counter as in eager
    eager, compiled = _twins(ConvBN)
    run = torch.compile(compiled)
    xs = _inputs(5, (6, 2, 8, 8))
    before = [(a._version, b._version) for a, b in zip(eager.buffers(), compiled.buffers())]
    _same(_train(eager, eager, xs), _train(compiled, run, xs))
    assert torch._dynamo.replay_status(run)[0].replayed == 4
    named = zip(eager.named_buffers(), compiled.named_buffers(), before)
    for (name, a), (_, b), (va, vb) in named:
        assert np.array_equal(a.numpy(), b.numpy()), name
        assert a._version - va == b._version - vb == 5, name  # a write per call, replays too
    assert compiled.bn.num_batches_tracked.item() == 5
    eager.eval(), compiled.eval()
    for x in xs[:3]:
        assert np.array_equal(run(x).detach().numpy(), eager(x).detach().numpy())


def test_in_place_writes_a_replay_cannot_redo_are_refused():
    buffer = torch.zeros(3)

    def saved_then_written(x):
        y = x * buffer  # the product saves `buffer` for x's gradient
        buffer.add_(1)  # ... which eager's backward then finds changed
        return y

    x = torch.ones(3, requires_grad=True)
    run = torch.compile(saved_then_written)
    for _ in range(3):
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            run(x).sum().backward()
    assert "written in place later" in torch._dynamo.replay_status(run)[0].refused

    def on_argument(x, y):
        y.mul_(2)
        return x * y

    run = torch.compile(on_argument)
    y = torch.ones(3)
    for _ in range(3):
        run(x, y)
    assert y.tolist() == [8.0, 8.0, 8.0]
    assert "on an argument" in torch._dynamo.replay_status(run)[0].refused


def test_a_replay_counts_batch_norms_writes_where_eager_does():
    # the running statistics are written by the kernel and counted by F.batch_norm: a replay
    # counts them too, so a graph that saved them (eval mode) sees the write at backward
    torch.manual_seed(0)
    bn = nn.BatchNorm1d(3)
    run = torch.compile(bn)
    for _ in range(3):
        run(torch.randn(4, 3))
    assert torch._dynamo.replay_status(run)[0].replayed == 2
    x = torch.randn(4, 3, requires_grad=True)
    bn.eval()
    y = bn(x)  # eager, eval mode: saves running_var for x's gradient
    bn.train()
    run(torch.randn(4, 3))
    assert torch._dynamo.replay_status(run)[0].replayed == 3
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_a_write_outside_the_ops_refuses_the_replay():
    # Embedding(max_norm) renormalises the rows it reads in place, outside the ops: a replay
    # would not, so every call runs the Python (See Note [In-place steps])
    torch.manual_seed(0)
    eager = nn.Embedding(10, 4, max_norm=1.0)
    compiled = nn.Embedding(10, 4, max_norm=1.0)
    compiled.load_state_dict(eager.state_dict())
    run = torch.compile(compiled)
    for i in range(4):
        idx = torch.tensor([i, i + 1, 3])
        with torch.no_grad():
            eager.weight.mul_(1.5), compiled.weight.mul_(1.5)
        assert np.array_equal(run(idx).detach().numpy(), eager(idx).detach().numpy())
        assert np.array_equal(compiled.weight.detach().numpy(), eager.weight.detach().numpy())
    status = torch._dynamo.replay_status(run)[0]
    assert status.replayed == 0 and "embedding_renorm_" in status.refused


@pytest.mark.parametrize("pool", [F.max_pool2d, lambda x, k: F.max_pool1d(x[:, 0], k)])
def test_max_pool_gradients_follow_each_replays_indices(pool):
    # the indices are a saved output a formula reads as a tensor: a replay must not keep the
    # traced call's tensor of them (it routed every gradient to the first call's maxima)
    def f(x):
        return pool(x.relu(), 2)

    run = torch.compile(f)
    for x in _inputs(4, (2, 2, 4, 4)):
        x.requires_grad_()
        (got,) = torch.autograd.grad(run(x).pow(2).sum(), x)
        (want,) = torch.autograd.grad(f(x).pow(2).sum(), x)
        assert np.array_equal(got.numpy(), want.numpy())
    assert torch._dynamo.replay_status(run)[0].replayed == 3


class InPlaceResidual(nn.Module):
    # torchvision's BasicBlock shape: ReLU(inplace=True) and `out += identity`
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(6, 6), nn.Linear(6, 6)
        self.bn = nn.BatchNorm1d(6)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        out = self.fc2(self.relu(self.bn(self.fc1(x))))
        out += x
        return self.relu(out)


def test_in_place_ops_on_tensors_the_call_made_replay_with_eagers_versions():
    eager, compiled = _twins(InPlaceResidual)
    run = torch.compile(compiled)
    xs = _inputs(5)
    _same(_train(eager, eager, xs), _train(compiled, run, xs))
    assert torch._dynamo.replay_status(run)[0].replayed == 4
    kept = run(xs[0])
    assert kept._version == eager(xs[0])._version == 2
    run(xs[1]).sum().backward()  # the next replay leaves the last output's counter alone
    assert kept._version == 2


@pytest.mark.parametrize(
    "body, reason",
    [
        (lambda y, w: (y * w, y.mul_(2))[0], None),  # saved, then written: eager raises
        (lambda y, w: (y * w).tanh().relu_(), None),  # a returned output saved, then written
        (lambda y, w: y.mul_(y.exp()) * w, "saved a copy of it from before the write"),
        (lambda y, w: (y[0], y.relu_())[0] * w + y, "never viewed"),
        (lambda y, w: y[0].relu_() * w + y, "never viewed"),
    ],
)
def test_in_place_history_rewrites_a_replay_cannot_redo_are_refused_or_raise_as_eager(body, reason):
    lin = nn.Linear(6, 6)
    w = torch.randn(6, requires_grad=True)

    def f(x):
        return body(lin(x), w)

    run = torch.compile(f)
    for x in _inputs(4):
        try:
            want = torch.autograd.grad(f(x).sum(), (w, lin.weight))
        except RuntimeError as exc:
            assert "modified by an inplace operation" in str(exc)
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                torch.autograd.grad(run(x).sum(), (w, lin.weight))
            continue
        got = torch.autograd.grad(run(x).sum(), (w, lin.weight))
        assert all(np.array_equal(a.numpy(), b.numpy()) for a, b in zip(got, want))
    status = torch._dynamo.replay_status(run)[0]
    if reason is None:
        assert status.replayed == 3
    else:
        assert status.replayed == 0 and reason in status.refused


SHIFTS = [1.0, 2.0, 3.0]


def test_tensors_of_python_numbers_replay_and_a_list_is_followed():
    # torch.tensor of numbers is made again on each replay (the idiom
    # `scores / torch.sqrt(torch.tensor(d_k))`); a list from before the call may change in
    # place between calls, so a tensor of one refuses the replay and every call reads it
    def scaled(x):
        d = torch.tensor(x.shape[-1], dtype=torch.float32)
        return x / torch.sqrt(d) + torch.tensor((1.0, 2.0, 3.0)) * torch.tensor([[1], [2]])

    run = torch.compile(scaled)
    for x in _inputs(4, (2, 3)):
        assert np.array_equal(run(x).numpy(), scaled(x).numpy())
    assert torch._dynamo.replay_status(run)[0].replayed == 3

    def shifted(x):
        return x + torch.tensor(SHIFTS)

    run = torch.compile(shifted)
    for i, x in enumerate(_inputs(4, (2, 3))):
        SHIFTS[0] = float(i)
        assert np.array_equal(run(x).numpy(), shifted(x).numpy())
    status = torch._dynamo.replay_status(run)[0]
    assert status.replayed == 0 and "a list made before the call" in status.refused
