"""How model, optimizer and modes are wired: parameters that get gradients but belong to no
optimizer, and training that goes on in eval mode after a validation."""

from __future__ import annotations

import linecache
import re

from ..nn.modules.conversion import ConversionMixin
from ..nn.modules.dropout import _DropoutNd
from ..nn.modules.module import Module
from ..nn.modules.normalization import _BatchNorm
from ..nn.parameter import Parameter
from ..optim.optimizer import Optimizer
from .sites import definition_site, user_site

__all__ = ["install", "finish", "eval_output_used", "check_step"]


def install(session, patcher) -> None:
    init, train = Optimizer.__init__, ConversionMixin.train

    def optimizer_init(self, *args, **kwargs):
        if not session.busy:
            session.optimizer_sites[id(self)] = user_site()
        return init(self, *args, **kwargs)

    def set_mode(self, mode: bool = True):
        if not session.busy:  # model.eval() / model.train(False), and its children
            if mode:
                session.eval_sites.pop(id(self), None)
            else:
                session.eval_sites[id(self)] = user_site()
        return train(self, mode)

    patcher.set(Optimizer, "__init__", optimizer_init)
    patcher.set(ConversionMixin, "train", set_mode)


def _stepped(optimizer) -> set:
    return {id(p) for g in optimizer.param_groups for p in g["params"]}


# ---- eval-mode-not-restored ----------------------------------------------------------------


def eval_output_used(session, record) -> None:
    """A backward went through a forward made in eval mode: training, if a step follows."""
    if any(p._requires_grad for p in record.state.module.parameters()):
        session.eval_trained[id(record.state)] = record


def check_step(session, optimizer) -> None:
    if not session.eval_trained:
        return
    stepped = _stepped(optimizer)
    for record in list(session.eval_trained.values()):
        module = record.state.module
        if not any(id(p) in stepped and p._grad is not None for p in module.parameters()):
            continue
        layers = record.state.stochastic
        named = ", ".join(f"`{name}` ({type(m).__name__})" for name, m in layers[:3])
        effects = []
        if any(isinstance(m, _DropoutNd) for _, m in layers):
            effects.append("dropout is off")
        if any(isinstance(m, _BatchNorm) for _, m in layers):
            effects.append("batch norm neither uses batch statistics nor updates its running ones")
        where = session.eval_sites.get(id(module)) or session.eval_sites.get(id(layers[0][1]))
        said = f"model.eval() at line {where[1]} is never undone: " if where else ""
        session.report.add(
            "eval-mode-not-restored",
            where or record.site,
            f"{said}{record.state.label} trains in eval mode (the forward at line "
            f"{record.site[1] if record.site else '?'} is backpropagated and stepped) with "
            f"{named}: {' and '.join(effects)}",
        )
    session.eval_trained.clear()


# ---- param-not-in-optimizer ----------------------------------------------------------------


def finish(session) -> None:
    if not session.optimizers or session.failed:
        return
    stepped = set()
    for optimizer in session.optimizers.values():
        stepped |= _stepped(optimizer)
    lost = []
    for state in list(session.params.values()):
        p = state.ref()
        if (
            isinstance(p, Parameter)
            and state.got_grad
            and p._requires_grad
            and id(p) not in stepped
            and id(p) not in session.manual
        ):
            lost.append(p)
    by_site: dict = {}
    for p in lost:
        site, how = _lost_site(session, p)
        by_site.setdefault((site, how), []).append(p)
    for (site, how), group in by_site.items():
        if how is _ADDED_LATE:  # what it replaced stays in the optimizer, without gradient
            owned = {id(p) for state in session.models.values() for p in state.module.parameters()}
            session.orphans = stepped - owned
        several = len(group) > 1
        session.report.add(
            "param-not-in-optimizer",
            site,
            f"{_listing(session, group)} {'get' if several else 'gets'} gradients but "
            f"{'belong' if several else 'belongs'} to no optimizer, so "
            f"{'they never change' if several else 'it never changes'}: {how}",
        )


_ADDED_LATE = "this module was added to the model after the optimizer was built"


def _lost_site(session, p):
    """The line to fix, and why: a plain list of layers, a module added after the optimizer
    was built, else the optimizer's construction."""
    first_optimizer = next(iter(session.optimizers))
    built = session.optimizer_sites.get(first_optimizer)
    for state in session.models.values():
        owners = _plain_container(state.module, p)
        if owners:
            site = definition_site(owners)
            if site:
                return site, (
                    "the layers sit in a plain Python list or dict, which nn.Module does not "
                    "register (model.parameters() does not list them)"
                )
        path = _attribute_path(state.module, p)
        if path and built:
            added = _assigned_after(built, path)
            if added:
                return added, _ADDED_LATE
    how = "the optimizer here was built on part of the model only"
    return built or session.first_step_site, how


def _plain_container(module, p) -> list:
    # [(owner, attribute)] when `p` lives in a module held by a list, tuple or dict attribute
    found = _in_plain_container(module, p)
    return [found[:2]] if found else []


def _in_plain_container(module, p):
    """(owner, attribute, name of `p` from there) when a plain container holds `p`."""
    for m in module.modules():
        for name, value in vars(m).items():
            if name.startswith("_") or not isinstance(value, (list, tuple, dict)):
                continue
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                if item is p:
                    return m, name, f"{name}[{key!r}]"
                if isinstance(item, Module):
                    for inner, q in item.named_parameters():
                        if q is p:
                            return m, name, f"{name}[{key!r}].{inner}"
    return None


def _attribute_path(module, p) -> list:
    for name, q in module.named_parameters():
        if q is p:
            return name.split(".")[:-1]
    return []


def _assigned_after(site, path: list):
    filename, start = site
    for part in reversed(path):
        pattern = re.compile(rf"\.{re.escape(part)}\s*=(?!=)|add_module\(\s*['\"]{part}['\"]")
        lines = linecache.getlines(filename)
        for number in range(start + 1, len(lines) + 1):
            if pattern.search(lines[number - 1].split("#", 1)[0]):
                return filename, number
    return None


def _listing(session, params: list) -> str:
    names, plain = {}, {}
    for state in session.models.values():
        for name, q in state.module.named_parameters():
            names.setdefault(id(q), name)
        for p in params:
            found = id(p) not in names and _in_plain_container(state.module, p)
            if found:
                plain[id(p)] = found[2]
    order = list(names)
    names.update(plain)
    params = sorted(
        params,
        key=lambda p: (order.index(id(p)) if id(p) in order else len(order), names.get(id(p), "")),
    )
    shown = [
        f"`{names[id(p)]}`" if id(p) in names else f"a tensor of shape {tuple(p.shape)}"
        for p in params[:4]
    ]
    more = f" and {len(params) - 4} more" if len(params) > 4 else ""
    what = "parameters " if len(params) > 1 else "parameter "
    return what + ", ".join(shown) + more
