"""`LBFGS`: limited-memory BFGS over all parameters as one flat vector, with a Wolfe line search."""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..graph.grad_mode import no_grad
from .line_search import strong_wolfe
from .optimizer import Optimizer, check_nonnegative, closure_loss, real_view, scalar

__all__ = ["LBFGS"]


# Note [LBFGS scalars]
# PyTorch's L-BFGS mixes Python floats (the losses, `lr`, the line search's first bracket end
# 0) with 0-d tensors (every dot product, and what is computed from one: `ro`, `H_diag`, often
# `t`), and the state keeps whichever each one is. Here a 0-d tensor is a NumPy scalar of the
# parameters' dtype: NumPy rounds a Python float to that dtype before combining the two, as
# PyTorch does with a tensor, so each comparison and product rounds alike and the state saves
# the same kinds (0-d tensors where PyTorch has them, floats and ints where it has those).
# Dot products and sums run in NumPy's BLAS and pairwise order, not PyTorch's: float32 results
# differ in the last bits, not in the branches taken.

_MEMORY = ("d", "t", "old_dirs", "old_stps", "ro", "H_diag", "prev_flat_grad", "prev_loss")


class LBFGS(Optimizer):
    """Matches `torch.optim.LBFGS`; `step(closure)` re-evaluates the loss as often as it needs.

    >>> opt = LBFGS(model.parameters(), line_search_fn="strong_wolfe")
    >>> opt.step(closure)
    """

    def __init__(
        self,
        params,
        lr=1,
        max_iter: int = 20,
        max_eval: int | None = None,
        tolerance_grad: float = 1e-7,
        tolerance_change: float = 1e-9,
        history_size: int = 100,
        line_search_fn: str | None = None,
    ) -> None:
        check_nonnegative(lr=lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {
            "lr": lr,
            "max_iter": max_iter,
            "max_eval": max_eval,
            "tolerance_grad": tolerance_grad,
            "tolerance_change": tolerance_change,
            "history_size": history_size,
            "line_search_fn": line_search_fn,
        }
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    # ---- the parameters as one flat vector ----------------------------------------------------
    def _gather_flat_grad(self) -> np.ndarray:
        views = []
        for p in self._params:
            grad = p._grad._data if p._grad is not None else np.zeros_like(p._data)
            views.append(real_view(grad).reshape(-1))
        return np.concatenate(views)

    def _add_grad(self, step_size, update: np.ndarray) -> None:
        offset = 0
        for p in self._params:
            param = real_view(p._data)
            numel = param.size
            param += update[offset : offset + numel].reshape(param.shape) * step_size
            p._version_counter.bump("add_")
            offset += numel

    def _clone_param(self) -> list:
        return [p._data.copy() for p in self._params]

    def _set_param(self, params_data: list) -> None:
        for p, data in zip(self._params, params_data):
            np.copyto(p._data, data)
            p._version_counter.bump("copy_")

    def _directional_evaluate(self, closure, x, t, d) -> tuple:
        self._add_grad(t, d)
        loss = _as_float(closure_loss(closure))
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    # ---- step -----------------------------------------------------------------------------
    def step(self, closure):
        """Performs a single optimization step; `closure` clears the gradients, computes the
        loss, backpropagates it and returns it."""
        with no_grad(), np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return self._step(closure)

    def _step(self, closure):
        group = self.param_groups[0]
        # L-BFGS's state is global; PyTorch files it under the first parameter, so that
        # load_state_dict casts it with that parameter's dtype
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        orig_loss = closure_loss(closure)
        loss = _as_float(orig_loss)
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if np.abs(flat_grad).max() <= group["tolerance_grad"]:
            return orig_loss
        memory = {key: _unpack(state.get(key)) for key in _MEMORY}
        run = {"loss": loss, "flat_grad": flat_grad, "current_evals": 1}
        n_iter = 0
        while n_iter < group["max_iter"]:
            n_iter += 1
            state["n_iter"] += 1
            if not self._iterate(closure, group, state, memory, run, n_iter):
                break
        if "al" in state:
            state["al"] = [_pack(value) for value in state["al"]]
        for key in _MEMORY:
            state[key] = _pack(memory[key])
        return orig_loss

    def _iterate(self, closure, group, state, memory, run, n_iter) -> bool:
        """One L-BFGS iteration; whether to go on."""
        flat_grad = run["flat_grad"]
        _direction(state, memory, flat_grad, group["history_size"])
        if memory["prev_flat_grad"] is None:
            memory["prev_flat_grad"] = flat_grad.copy()
        else:
            np.copyto(memory["prev_flat_grad"], flat_grad)
        memory["prev_loss"] = run["loss"]
        lr, d = scalar(group["lr"]), memory["d"]
        # the first step is kept short: at most lr, scaled by the gradient's size
        t = min(1.0, 1.0 / np.abs(flat_grad).sum()) * lr if state["n_iter"] == 1 else lr
        memory["t"] = t
        gtd = flat_grad.dot(d)
        if gtd > -group["tolerance_change"]:
            return False
        evals = self._move(closure, group, memory, run, gtd, n_iter)
        run["current_evals"] += evals
        state["func_evals"] += evals
        if n_iter == group["max_iter"] or run["current_evals"] >= group["max_eval"]:
            return False
        if run["opt_cond"] or np.abs(d * memory["t"]).max() <= group["tolerance_change"]:
            return False
        return not abs(run["loss"] - memory["prev_loss"]) < group["tolerance_change"]

    def _move(self, closure, group, memory, run, gtd, n_iter) -> int:
        """Step along `d`, by a line search or by `t`; how many times the loss was evaluated."""
        d, t = memory["d"], memory["t"]
        line_search_fn = group["line_search_fn"]
        run["opt_cond"] = False
        evals = 0
        if line_search_fn is not None:
            if line_search_fn != "strong_wolfe":
                raise RuntimeError("only 'strong_wolfe' is supported")
            x_init = self._clone_param()

            def obj_func(x, t, d):
                return self._directional_evaluate(closure, x, t, d)

            max_ls = group["max_eval"] - run["current_evals"]
            run["loss"], run["flat_grad"], t, evals = strong_wolfe(
                obj_func, x_init, t, d, run["loss"], run["flat_grad"], gtd, max_ls=max_ls
            )
            memory["t"] = t
            self._add_grad(t, d)
            run["opt_cond"] = np.abs(run["flat_grad"]).max() <= group["tolerance_grad"]
        else:
            self._add_grad(t, d)
            # the loss is not re-evaluated after the last iteration: in a stochastic setting
            # that evaluation would be of no use
            if n_iter != group["max_iter"]:
                run["loss"] = _as_float(closure_loss(closure))
                run["flat_grad"] = self._gather_flat_grad()
                run["opt_cond"] = np.abs(run["flat_grad"]).max() <= group["tolerance_grad"]
                evals = 1
        return evals


def _direction(state: dict, memory: dict, flat_grad: np.ndarray, history_size: int) -> None:
    """The descent direction `d`: the gradient's negation, then the L-BFGS two-loop recursion
    over the kept (y, s) pairs."""
    if state["n_iter"] == 1:
        memory.update(d=-flat_grad, old_dirs=[], old_stps=[], ro=[], H_diag=1)
        return
    old_dirs, old_stps, ro = memory["old_dirs"], memory["old_stps"], memory["ro"]
    y = flat_grad - memory["prev_flat_grad"]
    s = memory["d"] * memory["t"]
    ys = y.dot(s)
    if ys > 1e-10:  # curvature condition: only then is the pair kept
        if len(old_dirs) == history_size:
            old_dirs.pop(0)
            old_stps.pop(0)
            ro.pop(0)
        old_dirs.append(y)
        old_stps.append(s)
        ro.append(1.0 / ys)
        memory["H_diag"] = ys / y.dot(y)
    if "al" not in state:
        state["al"] = [None] * history_size
    al = state["al"]
    q = -flat_grad
    for i in range(len(old_dirs) - 1, -1, -1):
        al[i] = old_stps[i].dot(q) * ro[i]
        q += old_dirs[i] * -al[i]
    r = q * memory["H_diag"]
    for i in range(len(old_dirs)):
        be_i = old_dirs[i].dot(r) * ro[i]
        r += old_stps[i] * (al[i] - be_i)
    memory["d"] = r


def _as_float(loss) -> float:
    # dyngrad's float() warns about requires_grad even under no_grad, which PyTorch's does not
    return float(loss.item() if isinstance(loss, Tensor) else loss)


def _pack(value):
    """A NumPy value of the state as the Tensor PyTorch keeps (See Note [LBFGS scalars])."""
    if isinstance(value, list):
        return [_pack(v) for v in value]
    if isinstance(value, (np.ndarray, np.generic)):
        return Tensor._wrap(np.asarray(value))
    return value


def _unpack(value):
    if isinstance(value, list):
        return [_unpack(v) for v in value]
    if isinstance(value, Tensor):
        return value._data if value._data.ndim else value._data[()]
    return value
