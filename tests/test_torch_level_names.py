"""Top-level names programs reach for: the linear-algebra functions PyTorch removed (they
raise PyTorch's error), `torch.ctc_loss` with ATen's integer reduction, `is_set_to`,
`const_data_ptr`, `is_distributed`, and `torch.types`."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

REMOVED = [
    "t.solve(a, a)", "a.solve(a)", "t.eig(a)", "a.eig()", "t.lstsq(a, a)", "a.lstsq(a)",
    "t.symeig(a)", "a.symeig()", "t.matrix_rank(a)",
]  # fmt: skip


@pytest.mark.parametrize("call", REMOVED)
def test_removed_functions_raise_torch_first_sentence(call, torch):
    def first_sentence(t):
        with pytest.raises(RuntimeError) as info:
            eval(call, {"t": t, "a": t.ones(3, 3)})
        return str(info.value).split(".")[0]

    assert first_sentence(dyngrad) == first_sentence(torch)
    assert first_sentence(dyngrad) == "This function was deprecated since version 1"


def test_removed_function_names_the_replacement():
    with pytest.raises(RuntimeError, match="torch.linalg.solve"):
        dyngrad.solve(dyngrad.ones(2, 2), dyngrad.ones(2, 2))


@pytest.mark.parametrize("reduction", [None, 0, 1, 2])
def test_ctc_loss_with_integer_reduction(reduction, torch):
    rng = np.random.default_rng(0)
    log_probs = np.log(rng.dirichlet(np.ones(5), (6, 2))).astype(np.float32)
    arrays = (log_probs, np.array([[1, 2, 3], [2, 3, 0]]), np.array([6, 6]), np.array([3, 2]))

    def run(t):
        args = [t.from_numpy(a) for a in arrays]
        args[0].requires_grad_(True)
        out = t.ctc_loss(*args) if reduction is None else t.ctc_loss(*args, 0, reduction)
        return out.detach().numpy(), out.grad_fn.name()

    (ours, our_node), (theirs, their_node) = run(dyngrad), run(torch)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)
    assert our_node == their_node


def test_is_set_to_and_data_pointers():
    a = dyngrad.randn(3, 3)
    assert a.is_set_to(a) and a[1:].is_set_to(a[1:])
    assert not a.is_set_to(a.clone()) and not a.is_set_to(a.t())
    assert a.const_data_ptr() == a.data_ptr()
    assert dyngrad.is_distributed(a) is False and a.is_distributed() is False


def test_types_aliases():
    types = dyngrad.types
    assert isinstance(3, types._Number) and not isinstance("3", types._Number)
    assert str(types.Number) == "int | float | bool"
    assert types._dtype is dyngrad.dtype and types._device is dyngrad.device
    assert isinstance(dyngrad.Size([2]), types._size.__args__)
