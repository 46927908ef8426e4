"""torch.func: grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian, vmap, functional_call.

Tests taking `lib` run on dyngrad and on the real torch (skipped without it).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngrad


@pytest.fixture(params=["dyngrad", "torch"])
def lib(request):
    if request.param == "torch":
        return pytest.importorskip("torch")
    return dyngrad


def values(tree):
    """Tensors of a (nested) result as nested lists of floats, for comparing two libraries."""
    if isinstance(tree, dict):
        return {k: values(v) for k, v in tree.items()}
    if isinstance(tree, (tuple, list)):
        return [values(t) for t in tree]
    return (np.asarray(tree.detach().tolist()).round(10) + 0.0).tolist()  # -0.0 as 0.0


def same_on_both(torch, compute):
    """`compute(lib)` on dyngrad and on torch; their values must agree."""
    ours = compute(dyngrad)
    np.testing.assert_equal(values(ours), values(compute(torch)))
    return ours


def data(lib):
    x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64)
    w = lib.tensor([[1.0, 0.5, -0.5], [0.25, 2.0, 1.0]], dtype=lib.float64)
    return x, w


# ---- grad and grad_and_value ---------------------------------------------------------------


def test_grad_and_argnums_match_torch(torch):
    def compute(lib):
        func = lib.func
        x, w = data(lib)
        f = lambda x, w: (w @ x.sin()).pow(2).sum()
        return (
            func.grad(f)(x, w),
            func.grad(f, argnums=1)(x, w),
            func.grad(f, argnums=(0, 1))(x, w),
            func.grad(f, argnums=-1)(x, w),
            func.grad_and_value(f, argnums=(1,))(x, w),
        )

    same_on_both(torch, compute)


def test_grad_of_a_dict_argument_returns_a_dict(torch):
    def compute(lib):
        x, w = data(lib)
        grads = lib.func.grad(lambda p: (p["w"] @ p["x"]).exp().sum())({"x": x, "w": w})
        assert list(grads) == ["x", "w"]
        return grads

    same_on_both(torch, compute)


def test_grad_has_aux_returns_the_aux_unchanged_in_structure(lib):
    x, _ = data(lib)
    grads, aux = lib.func.grad(lambda x: ((x**2).sum(), {"double": x * 2}), has_aux=True)(x)
    assert list(aux) == ["double"] and not aux["double"].requires_grad
    assert values(grads) == values(x * 2)
    (grads, (value, aux)) = lib.func.grad_and_value(lambda x: (x.sum(), x), has_aux=True)(x)
    assert value.item() == 1.5 and values(aux) == values(x)


def test_nested_grad_gives_higher_derivatives(lib):
    x = lib.tensor(2.0)
    f = lambda x: x**4
    assert lib.func.grad(lib.func.grad(f))(x).item() == 48.0  # 12 x^2
    assert lib.func.grad(lib.func.grad(lib.func.grad(f)))(x).item() == 48.0  # 24 x
    # the inner gradient 2 x y, at y = x, is 2 x^2 to the outer level: its gradient is 4 x
    mixed = lib.func.grad(lambda x: lib.func.grad(lambda y: (x * y**2).sum())(x).sum())
    assert values(mixed(lib.tensor([1.0, 3.0]))) == [4.0, 12.0]


def test_top_level_results_do_not_require_grad(lib):
    x, w = data(lib)
    grads, value = lib.func.grad_and_value(lambda x: (w @ x).sum())(x)
    assert not grads.requires_grad and not value.requires_grad
    out, vjp_fn = lib.func.vjp(lambda x: x.sin(), x)
    assert not out.requires_grad and not vjp_fn(lib.ones(3, dtype=lib.float64))[0].requires_grad


def test_closing_over_a_parameter_keeps_its_graph(torch):
    def compute(lib):
        x, w = data(lib)
        w.requires_grad_()
        g = lib.func.grad(lambda x: (w @ x.sin()).pow(2).sum())(x)
        assert g.requires_grad
        (dw,) = lib.autograd.grad(g.sum(), w)
        out, vjp_fn = lib.func.vjp(lambda x: w @ x, x)
        assert out.requires_grad and vjp_fn(lib.ones(2, dtype=lib.float64))[0].requires_grad
        return g, dw

    same_on_both(torch, compute)


def test_an_input_that_requires_grad_stays_differentiable(torch):
    def compute(lib):
        x, _ = data(lib)
        x.requires_grad_()
        g = lib.func.grad(lambda x: (x**3).sum())(x)
        return g, lib.autograd.grad(g.sum(), x)  # d(3 x^2)/dx = 6 x

    same_on_both(torch, compute)


def test_grad_ignores_an_outer_no_grad(lib):
    x, _ = data(lib)
    with lib.no_grad():
        g = lib.func.grad(lambda x: (x**2).sum())(x)
    assert values(g) == values(x * 2) and not g.requires_grad


def test_grad_respects_no_grad_inside_the_function(lib):
    def f(x):
        with lib.no_grad():
            c = x**2
        return (x - c).sum()

    x, _ = data(lib)
    assert values(lib.func.grad(f)(x)) == [1.0, 1.0, 1.0]


def test_an_output_that_does_not_require_grad_gives_zeros(lib):
    x, _ = data(lib)
    assert values(lib.func.grad(lambda x: lib.tensor(1.0, dtype=lib.float64))(x)) == [0.0] * 3
    assert values(lib.func.grad(lambda x, y: (x * 2).sum(), argnums=1)(x, x)) == [0.0] * 3


@pytest.mark.parametrize(
    "call, error, message",
    [
        (
            lambda F, x: F.grad(lambda x: x * 2)(x),
            RuntimeError,
            "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor "
            "with 1 dims. Maybe you wanted to use the vjp or jacrev APIs instead?",
        ),
        (
            lambda F, x: F.grad(lambda x: 3.0)(x),
            RuntimeError,
            "grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got <class 'float'>",
        ),
        (
            lambda F, x: F.grad(lambda x: x.sum(), has_aux=True)(x),
            RuntimeError,
            "grad_and_value(f)(*args): output of function f should be a tuple: (output, aux) "
            "if has_aux is True",
        ),
        (
            lambda F, x: F.grad(lambda x: x.sum())(3.0),
            ValueError,
            "Thing passed to transform API must be Tensor, got <class 'float'>",
        ),
        (
            lambda F, x: F.grad(lambda x, y: x.sum(), argnums=2)(x, x),
            RuntimeError,
            "Got argnum=2, but only 2 positional inputs",
        ),
        (
            lambda F, x: F.grad(lambda x, y: x.sum(), argnums=(0, 0))(x, x),
            RuntimeError,
            "argnums elements must be unique, got (0, 0)",
        ),
        (
            lambda F, x: F.grad(lambda x, y: x.sum(), argnums=())(x, x),
            RuntimeError,
            "argnums must be non-empty",
        ),
        (
            lambda F, x: F.grad(lambda x, y: x.sum(), argnums=[0])(x, x),
            RuntimeError,
            "argnums must be int or Tuple[int, ...], got: <class 'list'>",
        ),
        (
            lambda F, x: F.grad(lambda x: (x.sum(), {"a": 1.0}), has_aux=True)(x),
            RuntimeError,
            "Expected tensors, got unsupported type <class 'float'>",
        ),
    ],
)
def test_grad_misuse_raises_torchs_errors(lib, call, error, message):
    x, _ = data(lib)
    with pytest.raises(error) as info:
        call(lib.func, x)
    assert str(info.value) == message


# ---- vjp and jvp ---------------------------------------------------------------------------


def test_vjp_returns_output_and_a_function(torch):
    def compute(lib):
        x, w = data(lib)
        out, vjp_fn = lib.func.vjp(lambda x, w: (w @ x, x.exp()), x, w)
        cotangents = (lib.ones(2, dtype=lib.float64), lib.full((3,), 0.5, dtype=lib.float64))
        first, second = vjp_fn(cotangents), vjp_fn(cotangents)  # the graph is retained
        assert isinstance(first, tuple) and len(first) == 2
        return out, first, second

    same_on_both(torch, compute)


def test_vjp_has_aux(lib):
    x, _ = data(lib)
    out, vjp_fn, aux = lib.func.vjp(lambda x: (x.sin(), x.cos()), x, has_aux=True)
    assert values(aux) == values(x.cos())
    assert values(vjp_fn(lib.ones(3, dtype=lib.float64))[0]) == values(x.cos())


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda F, x: F.vjp(lambda x: (x,), x)[1](x),
            "Expected pytree structure of cotangents to be the same as pytree structure of "
            "outputs to the function. cotangents: *, primal output: (*,)",
        ),
        (
            lambda F, x: F.vjp(lambda x: {"a": x, "b": [x]}, x)[1]((x, x)),
            "Expected pytree structure of cotangents to be the same as pytree structure of "
            "outputs to the function. cotangents: (*, *), primal output: {'a': *, 'b': [*]}",
        ),
        (
            lambda F, x: F.vjp(lambda x: x.int(), x),
            "vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got "
            "Tensor with dtype torch.int32",
        ),
        (
            lambda F, x: F.vjp(lambda x: (), x),
            "vjp(f, *primals): Expected f to be a function that has non-empty output (got "
            "output = [])",
        ),
        (
            lambda F, x: F.vjp(lambda x: [x, 2], x),
            "vjp(f, *primals): expected f(*primals) to return only tensors, got unsupported "
            "type <class 'int'>",
        ),
    ],
)
def test_vjp_misuse_raises_torchs_errors(lib, call, message):
    x, _ = data(lib)
    with pytest.raises(RuntimeError) as info:
        call(lib.func, x)
    assert str(info.value) == message


def test_jvp_matches_torch(torch):
    def compute(lib):
        x, w = data(lib)
        tangents = (lib.ones(3, dtype=lib.float64), lib.full((2, 3), 0.5, dtype=lib.float64))
        out, jvp_out = lib.func.jvp(lambda x, w: (w @ x.sin(), x * 2), (x, w), tangents)
        return out, jvp_out

    same_on_both(torch, compute)


def test_jvp_strict_rejects_an_output_independent_of_the_inputs(lib):
    x, _ = data(lib)
    with pytest.raises(RuntimeError) as info:
        lib.func.jvp(lambda x: lib.ones(3), (x,), (x,), strict=True)
    assert str(info.value) == (
        "jvp(f, primals, tangents, strict=True): The output of f is independent of the inputs. "
        "This is not allowed with strict=True."
    )
    with pytest.raises(RuntimeError, match="Expected primals to be a tuple"):
        lib.func.jvp(lambda x: x, x, x)


# ---- jacobians -----------------------------------------------------------------------------


def test_jacrev_jacfwd_and_hessian_match_torch(torch):
    def compute(lib):
        func = lib.func
        x, w = data(lib)
        f = lambda x, w: ((w @ x).tanh(), (x**3).sum())
        scalar = lambda x: (x.sin() * x).sum()
        return (
            func.jacrev(f)(x, w),
            func.jacrev(f, argnums=(0, 1))(x, w),
            func.jacfwd(f, argnums=1)(x, w),
            func.hessian(scalar)(x),
            func.jacrev(func.jacrev(scalar))(x),
        )

    same_on_both(torch, compute)


def test_jacrev_shapes_and_aux(lib):
    x, w = data(lib)
    jac, aux = lib.func.jacrev(lambda w: (w @ x, w.sum()), has_aux=True)(w)
    assert jac.shape == (2, 2, 3) and aux.item() == 4.25
    jac = lib.func.jacrev(lambda p: p["w"] @ p["x"])({"w": w, "x": x})
    assert jac["w"].shape == (2, 2, 3) and jac["x"].shape == (2, 3)


def test_hessian_of_a_module_loss_through_functional_call(torch):
    def compute(lib):
        lib.manual_seed(0)
        model = lib.nn.Linear(3, 2).double()
        with lib.no_grad():
            model.weight.copy_(lib.tensor([[0.1, 0.2, 0.3], [-0.4, 0.5, -0.6]]))
            model.bias.fill_(0.1)
        x, _ = data(lib)
        loss = lambda p: lib.func.functional_call(model, p, (x,)).tanh().sum()
        params = {k: v.detach() for k, v in model.named_parameters()}
        return lib.func.grad(loss)(params), lib.func.hessian(loss)(params)["bias"]["bias"]

    same_on_both(torch, compute)


# ---- vmap ----------------------------------------------------------------------------------


def test_vmap_in_dims_and_out_dims(torch):
    def compute(lib):
        vmap = lib.func.vmap
        x, w = data(lib)
        batch = lib.stack([x, x * 2, -x])
        return (
            vmap(lambda row: w @ row)(batch),
            vmap(lambda w, row: w @ row, in_dims=(None, 0))(w, batch),
            vmap(lambda col: col.sum(), in_dims=1)(w),
            vmap(lambda row: (row * 2, row.sum()), out_dims=(1, 0))(batch),
            vmap(lambda d: d["a"] + d["b"], in_dims=({"a": 0, "b": None},))({"a": batch, "b": x}),
            vmap(lambda row, scale: row * scale)(batch, scale=2.0),
            vmap(vmap(lambda a, b: a * b, in_dims=(0, None)), in_dims=(None, 0))(x, x),
        )

    same_on_both(torch, compute)


def test_vmap_of_grad_gives_per_sample_gradients(torch):
    def compute(lib):
        x, w = data(lib)
        batch = lib.stack([x, x * 2, -x])
        loss = lambda w, row: (w @ row).tanh().sum()
        return lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0))(w, batch)

    same_on_both(torch, compute)


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda vmap, x: vmap(lambda a, b: a + b)(x, x[:2]),
            "vmap: Expected all tensors to have the same size in the mapped dimension, got "
            "sizes [3, 2] for the mapped dimension",
        ),
        (
            lambda vmap, x: vmap(lambda a: a, in_dims=(None,))(x),
            "vmap: Expected at least one Tensor to vmap over",
        ),
        (
            lambda vmap, x: vmap(lambda a: a, in_dims=1)(x),
            "vmap(<lambda>, in_dims=1, ...)(<inputs>): Got in_dim=1 for some input, but that "
            "input is a Tensor of dimensionality 1 so expected in_dim to satisfy -1 <= in_dim "
            "< 1.",
        ),
        (
            lambda vmap, x: vmap(lambda a, b: a, in_dims=(0, 0))(x, 2.0),
            "vmap(<lambda>, in_dims=(0, 0), ...)(<inputs>): Got in_dim=0 for an input but the "
            "input is of type <class 'float'>. We cannot vmap over non-Tensor arguments, "
            "please use None as the respective in_dim",
        ),
        (
            lambda vmap, x: vmap(lambda a: a, in_dims=(0, 0))(x),
            "vmap(<lambda>, in_dims=(0, 0), ...)(<inputs>): in_dims is not compatible with the "
            "structure of `inputs`. in_dims has structure TreeSpec(tuple, None, [*,\n  *]) but "
            "inputs has structure TreeSpec(tuple, None, [*]).",
        ),
        (
            lambda vmap, x: vmap(lambda a: 3)(x),
            "vmap(<lambda>, ...): `<lambda>` must only return Tensors, got type <class 'int'>. "
            "Did you mean to set out_dims= to None for output?",
        ),
        (
            lambda vmap, x: vmap(lambda: x)(),
            "vmap(<lambda>)(<inputs>): got no inputs. Maybe you forgot to add inputs, or you "
            "are trying to vmap over a function with no inputs. The latter is unsupported.",
        ),
        (
            lambda vmap, x: vmap(lambda a: a, in_dims=[0])(x),
            "vmap(<lambda>, in_dims=[0], ...)(<inputs>): expected `in_dims` to be int or a "
            "(potentially nested) tuple matching the structure of inputs, got: <class 'list'>.",
        ),
    ],
)
def test_vmap_misuse_raises_torchs_errors(lib, call, message):
    x, _ = data(lib)
    with pytest.raises(ValueError) as info:
        call(lib.func.vmap, x)
    assert str(info.value) == message


def test_vmap_randomness_flags(lib):
    def noisy(x):
        return x + lib.rand(3)

    x = lib.zeros(2, 3)
    with pytest.raises(RuntimeError, match="vmap: called random operation while in randomness"):
        lib.func.vmap(noisy)(x)
    lib.manual_seed(0)
    same = lib.func.vmap(noisy, randomness="same")(x)
    after_same = lib.rand(1)
    lib.manual_seed(0)
    one = lib.rand(3)
    assert lib.equal(same[0], one) and lib.equal(same[1], one)
    assert lib.equal(after_same, lib.rand(1))  # "same" draws as one call does
    lib.manual_seed(0)
    different = lib.func.vmap(noisy, randomness="different")(x)
    lib.manual_seed(0)
    assert lib.equal(different, lib.rand(2, 3))
    lib.manual_seed(0)
    dropped = lib.func.vmap(lambda t: lib.nn.functional.dropout(t, 0.5), randomness="different")(
        lib.ones(2, 5)
    )
    lib.manual_seed(0)
    assert lib.equal(dropped, lib.nn.functional.dropout(lib.ones(2, 5), 0.5))


def test_stack_module_state_ensembles_as_torch(torch):
    def run(lib):
        lib.manual_seed(0)
        models = [lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh()) for _ in range(3)]
        params, buffers = lib.func.stack_module_state(models)

        def call(p, b, x):
            return lib.func.functional_call(models[0], (p, b), (x,))

        x = lib.linspace(-1, 1, 15).reshape(5, 3)
        out = lib.func.vmap(call, in_dims=(0, 0, None))(params, buffers, x)
        out.square().sum().backward()
        leaves = all(p.is_leaf and p.requires_grad for p in params.values())
        unrelated = models[0][0].weight.grad is None
        return out.detach().numpy(), params["0.weight"].grad.numpy(), leaves, unrelated

    ours, theirs = run(dyngrad), run(torch)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-5)
    assert ours[2:] == theirs[2:] == (True, True)


@pytest.mark.parametrize("case", ["empty", "mode", "class", "requires_grad"])
def test_stack_module_state_errors(lib, case):
    models = [lib.nn.Linear(2, 2), lib.nn.Linear(2, 2)]
    if case == "empty":
        models, message = [], "Expected at least one model, got 0."
    elif case == "mode":
        models[1].eval()
        message = "Expected all models to have the same training/eval mode."
    elif case == "class":
        models[1], message = lib.nn.Conv1d(2, 2, 1), "Expected all models to be of the same class."
    else:
        models[1].bias.requires_grad_(False)
        message = "Expected bias from each model to have the same .requires_grad"
    with pytest.raises(RuntimeError, match=message):
        lib.func.stack_module_state(models)


# ---- functional_call -----------------------------------------------------------------------


def test_functional_call_swaps_and_restores(lib):
    model = lib.nn.Linear(3, 2)
    weight = model.weight
    zeros = {"weight": lib.zeros(2, 3), "bias": lib.ones(2)}
    out = lib.func.functional_call(model, zeros, lib.ones(4, 3))
    assert values(out) == [[1.0, 1.0]] * 4
    assert model.weight is weight and isinstance(model.weight, lib.nn.Parameter)
    out = lib.func.functional_call(
        model, [{"weight": zeros["weight"]}, {"bias": zeros["bias"]}], (lib.ones(1, 3),)
    )
    assert values(out) == [[1.0, 1.0]]


def test_functional_call_gradients_reach_the_given_tensors(lib):
    model = lib.nn.Linear(3, 2)
    weight = lib.ones(2, 3, requires_grad=True)
    out = lib.func.functional_call(model, {"weight": weight}, (lib.ones(1, 3),), {})
    out.sum().backward()
    assert values(weight.grad) == [[1.0] * 3] * 2 and model.weight.grad is None


def test_functional_call_ties_weights(lib):
    model = lib.nn.Sequential(lib.nn.Linear(2, 2, bias=False), lib.nn.Linear(2, 2, bias=False))
    model[1].weight = model[0].weight
    eye = lib.eye(2)
    out = lib.func.functional_call(model, {"0.weight": eye * 2}, lib.ones(1, 2))
    assert values(out) == [[4.0, 4.0]]  # both layers used the new weight
    with pytest.raises(ValueError) as info:
        lib.func.functional_call(model, {"0.weight": eye, "1.weight": eye * 2}, lib.ones(1, 2))
    assert str(info.value) == (
        "functional_call got multiple values for keys ['0.weight', '1.weight'], which are "
        "tied. Consider using tie_weights=False"
    )


def test_functional_call_strict_and_argument_errors(lib):
    model = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.BatchNorm1d(2))
    params = {k: v.detach() for k, v in model.named_parameters()}
    with pytest.raises(RuntimeError) as info:
        lib.func.functional_call(model, {**params, "zz": lib.ones(1)}, lib.ones(3, 2), strict=True)
    assert str(info.value) == (
        "Error(s) in reparametrizing for Sequential:\n\tUnexpected key(s): 'zz'.\n\tMissing "
        "key(s): '1.num_batches_tracked', '1.running_mean', '1.running_var'."
    )
    with pytest.raises(ValueError, match="appeared in multiple dictionaries"):
        lib.func.functional_call(model, [params, params], lib.ones(3, 2))
    with pytest.raises(ValueError, match="Expected parameter_and_buffer_dicts to be a dict"):
        lib.func.functional_call(model, 3, lib.ones(3, 2))
    with pytest.raises(TypeError, match="3 is not an instance of torch.Tensor"):
        lib.func.functional_call(model, {"0.weight": 3}, lib.ones(3, 2))
    with pytest.raises(AttributeError, match="Sequential has no attribute `5`"):
        lib.func.functional_call(model, {"5.weight": lib.ones(1)}, lib.ones(3, 2))
    assert isinstance(model[0].weight, lib.nn.Parameter)


def test_stateless_functional_call_is_deprecated(lib):
    model = lib.nn.Linear(2, 1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lib.nn.utils.stateless.functional_call(model, {"bias": lib.zeros(1)}, lib.zeros(1, 2))
    assert caught[0].category is FutureWarning
    assert str(caught[0].message).startswith(
        "`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0"
    )


def test_torch_vmap_is_torch_func_vmap(lib):
    assert lib.vmap is lib.func.vmap
    assert lib.vmap(lambda row: row.sum())(lib.ones(2, 3)).tolist() == [3.0, 3.0]
