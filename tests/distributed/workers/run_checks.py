"""Run on every rank of a job: the collective and DDP checks; writes OUT/rank{r}.json."""

from __future__ import annotations

import json
import sys
import traceback
from datetime import timedelta

import collective_checks
import ddp_checks

import dyngrad.distributed as dist


def main(out: str, groups: list[str]) -> None:
    failures, passed = {}, []
    try:
        dist.get_rank()
    except ValueError as exc:
        if "Default process group has not been initialized" in str(exc):
            passed.append("uninitialized_calls_raise")
    dist.init_process_group("gloo", timeout=timedelta(seconds=60))
    r, w = dist.get_rank(), dist.get_world_size()
    chosen = {"collectives": collective_checks.CHECKS, "ddp": ddp_checks.CHECKS}
    for fn in [fn for name in groups for fn in chosen[name]]:
        try:
            fn(r, w)
            passed.append(fn.__name__)
        except Exception:
            failures[fn.__name__] = traceback.format_exc()
        dist.barrier()
    try:
        dist.init_process_group("gloo")
    except ValueError as exc:
        if str(exc) == "trying to initialize the default process group twice!":
            passed.append("init_twice_raises")
    dist.destroy_process_group()
    if not dist.is_initialized():
        passed.append("destroyed")
    with open(f"{out}/rank{r}.json", "w") as f:  # a file: the ranks' stdout lines interleave
        json.dump({"rank": r, "passed": passed, "failures": failures}, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:] or ["collectives", "ddp"])
