"""Gradients clipped while a GradScaler still scales them (`amp-clip-scaled`).

# Note [Clipping scaled gradients]
# After `scaler.scale(loss).backward()` every gradient is multiplied by the scale (65536 at
# first) until `scaler.unscale_(optimizer)` (or `scaler.step`, which unscales) divides it
# back. A clip in between compares the scaled norm with `max_norm`, so it clips every step by
# a factor of thousands, or not at all once the scale backs off. The doctor follows
# GradScaler's public calls only: `scale` marks the scaler, `unscale_` notes the
# optimizer's parameters as unscaled, `update` starts the next iteration. A clip of
# parameters that a scaled loss reached and no `unscale_` covered is the finding; a disabled
# scaler (CPU, `enabled=False`) scales nothing in this run, but the same code on a GPU does.
"""

from __future__ import annotations

from ..amp import GradScaler
from .sites import user_site

__all__ = ["install", "check_clip"]


class ScalerState:
    __slots__ = ("scaled", "unscaled", "enabled")

    def __init__(self) -> None:
        self.scaled = False  # a loss was scaled since the last update()
        self.unscaled: set = set()  # ids of parameters unscale_() divided back since then
        self.enabled = True


def install(session, patcher) -> None:
    scale, unscale, update = GradScaler.scale, GradScaler.unscale_, GradScaler.update

    def state(scaler) -> ScalerState:
        found = session.scalers.get(id(scaler))
        if found is None or found[0] is not scaler:
            found = session.scalers[id(scaler)] = (scaler, ScalerState())
        return found[1]

    def scaled(self, outputs):
        if not session.busy:
            s = state(self)
            s.scaled, s.enabled = True, self.is_enabled()
        return scale(self, outputs)

    def unscaled(self, optimizer) -> None:
        if not session.busy:
            state(self).unscaled.update(id(p) for g in optimizer.param_groups for p in g["params"])
        return unscale(self, optimizer)

    def updated(self, *args, **kwargs) -> None:
        if not session.busy:
            s = state(self)
            s.scaled = False
            s.unscaled.clear()
        return update(self, *args, **kwargs)

    for name, wrapper, original in (
        ("scale", scaled, scale),
        ("unscale_", unscaled, unscale),
        ("update", updated, update),
    ):
        wrapper.__doc__ = original.__doc__
        patcher.set(GradScaler, name, wrapper)


def check_clip(session, parameters: list, name: str) -> None:
    """A clip of gradients that a scaled loss made and nothing unscaled yet."""
    for _, s in session.scalers.values():
        if not s.scaled:
            continue
        pending = [p for p in parameters if p._grad is not None and id(p) not in s.unscaled]
        if not pending:
            continue
        run = "" if s.enabled else " (this run's scaler is disabled, so only on a GPU)"
        session.report.add(
            "amp-clip-scaled",
            user_site(),
            f"{name} clips gradients still multiplied by the GradScaler's scale{run}: the "
            "threshold is compared with scaled norms, so it clips by a huge factor or not "
            "at all",
        )
        return
