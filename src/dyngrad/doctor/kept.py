"""Graphs kept alive across iterations by a container of the user's (a history list of losses
or outputs): which list or dict holds them, and the statement that adds to it.

# Note [Kept graphs]
# Each backward notes its roots, and each top-level model call its outputs, in
# `session.lineage` (weakly). A graph of two or more passes ago that is still alive is held by
# something; a history list is the usual culprit. The search climbs the heap from the kept
# nodes (`gc.get_referrers`: node -> tuple -> node -> tensor -> tuple -> list ...) to a list
# or dict that has a name (a variable, an attribute, a dict key), then finds the statement
# that adds to it: first in the source (`name.append(`, `name += `, `["name"].append(`), else
# by watching, until the next backward, for a C call on the container itself
# (`sys.setprofile` sees `list.append`, `dict.setdefault`, ...), which names the line even in
# a helper function. The heap search is costly: it runs only when more graphs are kept than
# at the previous search, a few times per session.
"""

from __future__ import annotations

import gc
import linecache
import os
import re
import sys
import types
import weakref

from .._tensor import Tensor
from ..graph.node import AccumulateGrad, Node
from .sites import _PACKAGE_DIR, user_frame

__all__ = ["check_kept", "stop_watching"]

KEPT_AFTER = 2  # a graph of this many passes ago, still alive, is kept
MAX_SEARCHES = 3
_CLIMB = 10  # heap levels climbed from a kept node to its container
_ADDS = r"(\.\s*(append|extend|insert|setdefault|update)\s*\(|\s*\+=|\s*\[[^\]]*\]\s*=(?!=))"
MESSAGE = (
    "tensors with their graphs are kept here across iterations (a list of losses or "
    "outputs): every kept graph stays in memory"
)


def check_kept(session, roots) -> None:
    """At a backward: graphs of earlier passes still alive (see Note [Kept graphs])."""
    passes = session.passes
    for node, _ in roots:
        if node is not None and type(node) is not AccumulateGrad:
            session.lineage.append((passes, weakref.ref(node)))
    alive = [(p, ref) for p, ref in session.lineage if ref() is not None]
    session.lineage = alive[-256:]
    stop_watching(session)
    if session.kept_reported or session.kept_searches >= MAX_SEARCHES:
        return
    old = [ref() for p, ref in alive if p <= passes - KEPT_AFTER]
    if len(old) <= session.kept_searched:
        return
    session.kept_searches += 1
    session.kept_searched = len(old)
    frames = _user_frames()
    containers = _containers(old, frames)
    old = None
    if containers:
        site = _source_statement(containers, frames)
        if site is not None:
            _report(session, site)
        else:
            _watch_adds(session, [c for c, _ in containers])


def _report(session, site) -> None:
    session.kept_reported = True
    session.report.add("graph-growth", site, MESSAGE)


def _user_frames() -> list:
    """The user's frames, up to the runner that started the script (runpy, a test)."""
    frames = []
    frame = user_frame(3)
    while frame is not None and frame.f_globals.get("__name__") != "runpy":
        if not frame.f_code.co_filename.startswith(_NOT_USERS):
            frames.append(frame)
        frame = frame.f_back
    return frames


# dyngrad, the standard library and installed packages (pytest, ...), frozen modules
_NOT_USERS = (_PACKAGE_DIR, "<") + tuple(
    {os.path.join(p, "lib") for p in (sys.prefix, sys.base_prefix)}
)


# ---- the containers that hold kept graphs ------------------------------------------------


def _containers(nodes: list, frames: list) -> list:
    """[(container, [(name, is_key)])] of the named lists and dicts that reach `nodes`."""
    ignore = {id(nodes), id(frames)}
    frontier = list(nodes)
    seen = {id(n) for n in nodes}
    found = []
    for _ in range(_CLIMB):
        if not frontier or found:
            break
        ignore.add(id(frontier))
        holders = gc.get_referrers(*frontier)
        ignore.add(id(holders))
        frontier = []
        for holder in holders:
            if id(holder) in seen or id(holder) in ignore:
                continue
            seen.add(id(holder))
            if isinstance(holder, (list, dict)):
                names = _names_of(holder, frames)
                if names:
                    found.append((holder, names))
                elif not _is_namespace(holder, frames):
                    frontier.append(holder)
            elif isinstance(holder, (tuple, Tensor, Node)):
                frontier.append(holder)
        holders = None
    return found


def _is_namespace(holder, frames: list) -> bool:
    # a module's globals or an object's attributes: they hold the current values, not history
    return any(holder is f.f_globals for f in frames) or "__module__" in holder


def _names_of(container, frames: list) -> list:
    """How the user's code can name `container`: variables, attributes and dict keys."""
    names = []
    for frame in frames:
        for scope in (frame.f_locals, frame.f_globals):
            for name, value in scope.items():
                if value is container:
                    names.append((name, False))
    for owner in gc.get_referrers(container):
        if isinstance(owner, dict) and owner is not container:
            is_key = not _is_attributes(owner)
        elif not isinstance(owner, (list, tuple, types.FrameType)) and hasattr(owner, "__dict__"):
            owner, is_key = vars(owner), False  # an attribute stored inline (CPython 3.11+)
        else:
            continue
        for name, value in owner.items():
            if value is container and isinstance(name, str):
                names.append((name, is_key))
    return names


def _is_attributes(owner: dict) -> bool:
    return any(
        getattr(obj, "__dict__", None) is owner
        for obj in gc.get_referrers(owner)
        if not isinstance(obj, (dict, types.FrameType))
    )


# ---- the statement that adds to them ---------------------------------------------------


def _source_statement(containers: list, frames: list):
    patterns = []
    for _, names in containers:
        for name, is_key in names:
            if is_key:
                patterns.append(rf"\[\s*['\"]{re.escape(name)}['\"]\s*\]{_ADDS}")
            else:
                patterns.append(rf"(^|[^\w])(self\.)?{re.escape(name)}{_ADDS}")
    pattern = re.compile("|".join(patterns))
    for filename in dict.fromkeys(f.f_code.co_filename for f in frames):
        for number, text in enumerate(linecache.getlines(filename), 1):
            if pattern.search(text.split("#", 1)[0]):
                return filename, number
    return None


def _watch_adds(session, containers: list) -> None:
    """Until the next backward, the first C call on a container from the user's code."""
    if sys.getprofile() is not None:  # a profiler or debugger runs: leave it alone
        return
    ids = {id(c) for c in containers}  # held below, so no other object takes their ids

    def profile(frame, event, arg):
        if event == "c_call" and id(getattr(arg, "__self__", None)) in ids:
            if not frame.f_code.co_filename.startswith(_PACKAGE_DIR):
                sys.setprofile(None)
                session.kept_watch = None
                _report(session, (frame.f_code.co_filename, frame.f_lineno))

    session.kept_watch = (profile, containers)
    sys.setprofile(profile)


def stop_watching(session) -> None:
    if session.kept_watch is not None:
        if sys.getprofile() is session.kept_watch[0]:
            sys.setprofile(None)
        session.kept_watch = None
