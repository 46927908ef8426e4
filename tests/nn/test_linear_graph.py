"""nn.Linear / F.linear record PyTorch's graph: AddmmBackward0 over TBackward0 for a matrix
with a bias, MmBackward0 without, the flattening views for other ranks, with PyTorch's edge
order and saved names; a make_dot picture of an MLP equals torchviz's."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys

import numpy as np
import pytest

import dyngrad
from dyngrad.autograd.graph import describe


def structure(fn):
    """A node's name and its children's structures, in next_functions order."""
    if fn is None:
        return None
    return (fn.name(), [structure(child) for child, _ in fn.next_functions])


def _pair(torch, shape, rg, w_shape=(3, 4), contiguous=True):
    rng = np.random.default_rng(0)
    array = rng.standard_normal(shape).astype(np.float32)
    if not contiguous:  # the same values, transposed in memory
        array = np.ascontiguousarray(np.swapaxes(array, 0, -2)).swapaxes(0, -2)
    out = []
    for lib in (dyngrad, torch):
        t = lib.from_numpy(array.copy() if contiguous else array)
        out.append(t.requires_grad_(rg))
    return out


INPUTS = [(2, 4), (1, 4), (4,), (2, 5, 4), (2, 3, 5, 4), (0, 4)]
BIASES = [None, (3,), (1, 3), (), (5, 3), (1, 1, 3)]


@pytest.mark.parametrize("shape,bias", list(itertools.product(INPUTS, BIASES)))
def test_graph_equals_torch(torch, shape, bias):
    x_d, x_t = _pair(torch, shape, True)
    w_d, w_t = _pair(torch, (3, 4), True)
    results = []
    for lib, x, w in ((dyngrad, x_d, w_d), (torch, x_t, w_t)):
        b = None if bias is None else lib.ones(bias, requires_grad=True)
        try:
            y = lib.nn.functional.linear(x, w, b)
        except RuntimeError as exc:
            results.append(str(exc).split("\n")[0])
            continue
        results.append((structure(y.grad_fn), tuple(y.shape)))
    assert results[0] == results[1]


@pytest.mark.parametrize("rx,rw,rb", list(itertools.product([False, True], repeat=3)))
def test_edges_follow_what_requires_grad(torch, rx, rw, rb):
    got = []
    for lib in (dyngrad, torch):
        x = lib.ones(2, 4, requires_grad=rx)
        w = lib.ones(3, 4, requires_grad=rw)
        b = lib.ones(3, requires_grad=rb)
        got.append(
            [structure(lib.nn.functional.linear(x, w, b).grad_fn)]
            + [structure(lib.nn.functional.linear(x, w).grad_fn)]
        )
    assert got[0] == got[1]


def test_non_contiguous_batch_is_matmul_then_add(torch):
    got = []
    for lib in (dyngrad, torch):
        x = lib.ones(2, 4, 5, requires_grad=True).transpose(1, 2)
        w = lib.ones(3, 4, requires_grad=True)
        got.append(structure(lib.nn.functional.linear(x, w, lib.ones(3)).grad_fn))
    assert got[0] == got[1]
    assert got[0][0] == "AddBackward0"


_SAVED = (
    "_saved_alpha",
    "_saved_beta",
    "_saved_mat1",
    "_saved_mat1_sym_sizes",
    "_saved_mat1_sym_strides",
    "_saved_mat2",
    "_saved_mat2_sym_sizes",
    "_saved_mat2_sym_strides",
    "_saved_self",
    "_saved_self_sym_sizes",
    "_saved_self_sym_strides",
)


def _saved(lib, fn) -> dict:
    out = {}
    for name in _SAVED:
        try:
            value = getattr(fn, name)
        except AttributeError:
            out[name] = "absent"
            continue
        if isinstance(value, lib.Tensor):
            value = ("tensor", tuple(value.shape), value.grad_fn and value.grad_fn.name())
        out[name] = tuple(value) if isinstance(value, (list, tuple)) else value
    return out


@pytest.mark.parametrize("rx,rw", [(True, True), (False, True), (True, False)])
@pytest.mark.parametrize("bias", [True, False])
def test_saved_values_have_torch_names(torch, rx, rw, bias):
    got = []
    for lib in (dyngrad, torch):
        x = lib.ones(2, 4, requires_grad=rx)
        w = lib.ones(3, 4, requires_grad=rw)
        b = lib.ones(3, requires_grad=True) if bias else None
        got.append(_saved(lib, lib.nn.functional.linear(x, w, b).grad_fn))
    assert got[0] == got[1]


def test_saved_mat2_is_the_weights_transpose_and_checks_versions(lib):
    w = lib.ones(3, 4, requires_grad=True)
    y = lib.nn.functional.linear(lib.ones(2, 4, requires_grad=True), w, lib.ones(3))
    assert y.grad_fn._saved_mat2._base is w
    with lib.no_grad():
        w.mul_(2)
    with pytest.raises(RuntimeError, match="output 0 of AsStrided, is at version 1"):
        y.sum().backward()


def test_gradients_equal_torch(torch):
    for shape in [(5, 4), (1, 4), (4,), (2, 3, 4)]:
        x_d, x_t = _pair(torch, shape, True)
        w_d, w_t = _pair(torch, (3, 4), True)
        b_d, b_t = dyngrad.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
        for lib, x, w, b in ((dyngrad, x_d, w_d, b_d), (torch, x_t, w_t, b_t)):
            y = lib.nn.functional.linear(x, w, b)
            (y * y).sum().backward()
        for ours, theirs in ((x_d, x_t), (w_d, w_t), (b_d, b_t)):
            np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-5)


def test_weight_gradient_is_adopted_without_a_copy():
    # Note [Linear's weight gradient]: TBackward0 hands AccumulateGrad the weight-shaped
    # product, which it keeps as .grad. Checked in a fresh interpreter: whether a gradient is
    # "held elsewhere" is read off its reference count, which a frame-evaluation hook left by
    # real torch.compile in this process (tests/compile) would change.
    code = """
import dyngrad
from dyngrad.autograd.graph_task import GraphTask
adopted = []
original = GraphTask.adoptable
def spy(self, g):
    result = original(self, g)
    adopted.append((tuple(g.shape), result))
    return result
GraphTask.adoptable = spy
layer = dyngrad.nn.Linear(4, 3)
layer(dyngrad.randn(5, 4)).sum().backward()
assert ((3, 4), True) in adopted, adopted
assert layer.weight.grad._data.flags.c_contiguous
"""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()


def test_double_backward_through_linear(torch):
    grads = []
    for lib in (dyngrad, torch):
        lib.manual_seed(0)
        x = lib.tensor(np.linspace(-1, 1, 8).reshape(2, 4), requires_grad=True)
        w = lib.tensor(np.linspace(-2, 1, 12).reshape(3, 4), requires_grad=True)
        y = lib.nn.functional.linear(x, w, lib.ones(3, dtype=lib.float64)).tanh().sum()
        (gx,) = lib.autograd.grad(y, x, create_graph=True)
        gx.pow(2).sum().backward()
        grads.append(w.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-10)


def test_mlp_picture_equals_torchviz_graph(torch):
    """make_dot draws one box per node and one edge per next_functions entry: the same walk
    over both libraries' graphs gives the same names and edges."""
    pytest.importorskip("graphviz")

    def walk(lib, root):
        ids, names, edges = {}, [], set()
        stack = [root]
        while stack:
            fn = stack.pop()
            if fn in ids:
                continue
            ids[fn] = len(ids)
            names.append(fn.name())
            for child, _ in fn.next_functions:
                if child is not None:
                    stack.append(child)
        for fn, i in ids.items():
            edges |= {(ids[c], i) for c, _ in fn.next_functions if c is not None}
        return names, edges

    walks = []
    for lib in (dyngrad, torch):
        lib.manual_seed(0)
        net = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 2))
        loss = net(lib.ones(5, 4)).pow(2).mean()
        walks.append(walk(lib, loss.grad_fn))
    assert walks[0] == walks[1]
    loss_d = _dyngrad_mlp_loss()
    dot = dyngrad.viz.make_dot(loss_d)
    labels = [line for line in dot.source.splitlines() if "label=" in line]
    assert sum("AddmmBackward0" in label for label in labels) == 2
    assert sum("TBackward0" in label for label in labels) == 2
    assert loss_d.grad_fn.name() == "MeanBackward0"


def _dyngrad_mlp_loss():
    dyngrad.manual_seed(0)
    net = dyngrad.nn.Sequential(dyngrad.nn.Linear(4, 8), dyngrad.nn.ReLU(), dyngrad.nn.Linear(8, 2))
    return net(dyngrad.ones(5, 4)).pow(2).mean()


def test_describe_shows_the_transpose_and_what_addmm_saved():
    layer = dyngrad.nn.Linear(3, 2)
    text = describe(layer(dyngrad.ones(4, 3)), detail=True)
    assert "AddmmBackward0" in text and "TBackward0" in text
    assert "mat1" in text  # the input, saved for the weight's gradient


def test_batched_matmul_by_a_matrix_folds_as_torch(torch):
    got = []
    for lib in (dyngrad, torch):
        x = lib.ones(2, 5, 4, requires_grad=True)
        got.append(
            [
                structure((x @ lib.ones(4, 3)).grad_fn),
                structure((x @ lib.ones(4)).grad_fn),
                structure((x.transpose(1, 2) @ lib.ones(5, 3, requires_grad=True)).grad_fn),
            ]
        )
    assert got[0] == got[1]
