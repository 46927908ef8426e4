"""The state of a group's small parameters in one flat array per kind, so a step makes each
pass of its update once for all of them instead of once per parameter.

# Note [Flat updates]
# An update is a dozen NumPy passes (Adam: lerp, the second moment, sqrt, the division...).
# On a (32, 20) weight each pass is a few hundred nanoseconds of work behind a microsecond of
# call, so a model of small layers spends its step calling: the articles' SimpleMLP took 85 us
# for six parameters. Here a group's small parameters keep their state tensors as views of one
# flat array per kind (`exp_avg`, `exp_avg_sq`, `step`), their gradients are copied into one
# flat buffer, every pass runs once on the flat arrays, and each parameter adds its slice of
# the update. Every element sees the same operations in the same order with the same scalars,
# so the result is bitwise the per-parameter loop's (tested). Large parameters keep their own
# passes: copying the gradient costs a pass of its own, more than a few calls save, and their
# passes run on two threads (Note [Intra-op threads]).
# The state stays PyTorch's to the user: `optimizer.state[p]["exp_avg"]` is a tensor of p's
# shape, written in place, counted by its version counter, saved and loaded as any other.
# Before each flat step the bundle checks that it still describes the group (same parameters,
# each with a gradient of its dtype and shape, the state tensors the ones it made, one step
# count for all); otherwise that step runs per parameter, on the same views, and the next step
# rebuilds the bundle from whatever the state then holds.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor

__all__ = ["FlatState", "SMALL", "flat_state"]

SMALL = 1 << 15  # elements; a larger parameter's own passes beat copying its gradient


class FlatState:
    """A group's small parameters with their state as views of flat arrays, one per kind."""

    __slots__ = (
        "keys",
        "group_params",
        "params",
        "rest",
        "states",
        "tensors",
        "views",
        "shapes",
        "flats",
        "steps",
        "grad",
        "update",
        "update_views",
        "dtype",
    )

    def current(self, optimizer, group, keys) -> bool:
        """Whether this bundle still describes `group`, so that a flat step is exact."""
        params = group["params"]
        if (
            keys != self.keys
            or len(params) != len(self.group_params)
            or any(p is not q for p, q in zip(params, self.group_params))
        ):
            return False
        dtype = self.dtype
        state_of = optimizer.state
        for p, state, tensors, views, shape in zip(
            self.params, self.states, self.tensors, self.views, self.shapes
        ):
            g = p._grad
            if (
                g is None
                or g._data.dtype != dtype
                or g._data.shape != shape
                or p._data.shape != shape
                or state_of.get(p) is not state
            ):
                return False
            for key, t, v in zip(self.keys, tensors, views):
                if state.get(key) is not t or t._data is not v:
                    return False
        steps = self.steps
        return bool(steps.min() == steps.max())

    def gather_grads(self) -> np.ndarray:
        np.concatenate([p._grad._data for p in self.params], axis=None, out=self.grad)
        return self.grad

    def gather_params(self) -> np.ndarray:
        return np.concatenate([p._data for p in self.params], axis=None)


def flat_state(optimizer, group: dict, keys: tuple, make_state) -> FlatState | None:
    """The group's bundle, rebuilt when it no longer describes the group; None when fewer than
    two parameters qualify (there is nothing to save then).

    `keys` name the state tensors kept flat besides the 0-d "step"; `make_state(p)` returns
    p's state, created if new.
    """
    keys = ("step",) + keys
    bundles = optimizer.__dict__.setdefault("_flat_states", {})
    flat = bundles.get(id(group))
    if flat is not None and flat.current(optimizer, group, keys):
        return flat
    live = {id(g) for g in optimizer.param_groups}  # groups replaced by load_state_dict
    for key in [key for key in bundles if key not in live]:
        del bundles[key]
    flat = _build(optimizer, group, keys, make_state)
    if flat is None:
        bundles.pop(id(group), None)
        return None
    bundles[id(group)] = flat
    return flat


def _eligible(p: Tensor) -> bool:
    data, grad = p._data, p._grad
    return (
        type(data) is np.ndarray
        and data.dtype.kind == "f"
        and data.size <= SMALL
        and grad is not None
        and type(grad._data) is np.ndarray
        and grad._data.dtype == data.dtype
        and grad._data.shape == data.shape
    )


def _build(optimizer, group, keys, make_state) -> FlatState | None:
    chosen, states = [], []
    dtype = step = None
    for p in group["params"]:
        if not _eligible(p):
            continue
        state = make_state(p)
        tensors = [state.get(key) for key in keys]
        if any(not isinstance(t, Tensor) or type(t._data) is not np.ndarray for t in tensors):
            continue
        counter, moments = tensors[0]._data, tensors[1:]
        if counter.shape != () or any(
            t._data.shape != p._data.shape or t._data.dtype != p._data.dtype for t in moments
        ):
            continue
        if dtype is None:
            dtype, step = p._data.dtype, (counter.dtype, counter.item())
        if p._data.dtype != dtype or (counter.dtype, counter.item()) != step:
            continue
        chosen.append(p)
        states.append(state)
    if len(chosen) < 2:
        return None
    flat = FlatState()
    flat.keys, flat.group_params = keys, tuple(group["params"])
    flat.params, flat.states, flat.dtype = tuple(chosen), tuple(states), dtype
    held = {id(p) for p in chosen}
    flat.rest = tuple(p for p in flat.group_params if id(p) not in held)
    flat.shapes = tuple(p._data.shape for p in chosen)
    bounds = np.cumsum([0] + [p._data.size for p in chosen]).tolist()
    # the current values move into the flat arrays; the state tensors stay the same objects
    flat.steps = np.array([s[keys[0]]._data for s in states], dtype=step[0])
    flat.flats = tuple(
        np.concatenate([s[key]._data for s in states], axis=None) for key in keys[1:]
    )
    flat.grad = np.empty(bounds[-1], dtype)
    flat.update = np.empty(bounds[-1], dtype)
    flat.update_views = tuple(_pieces(flat.update, bounds, flat.shapes))
    per_kind = [[flat.steps[i : i + 1].reshape(()) for i in range(len(chosen))]]
    per_kind += [_pieces(a, bounds, flat.shapes) for a in flat.flats]
    flat.tensors = tuple(tuple(s[key] for key in keys) for s in states)
    flat.views = tuple(zip(*per_kind))
    for tensors, views in zip(flat.tensors, flat.views):
        for t, v in zip(tensors, views):
            t._data = v
    return flat


def _pieces(array: np.ndarray, bounds: list, shapes: tuple) -> list:
    return [array[lo:hi].reshape(shape) for lo, hi, shape in zip(bounds, bounds[1:], shapes)]
