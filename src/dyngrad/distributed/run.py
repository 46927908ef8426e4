"""`python -m dyngrad.distributed.run`: torchrun's interface, the ranks started by mpiexec.

    python -m dyngrad.distributed.run --nproc-per-node 4 train.py --epochs 3
    python -m dyngrad.distributed.run --nproc-per-node 2 -m dyngrad doctor train.py

Each rank gets torchrun's environment (RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE,
MASTER_ADDR, MASTER_PORT, TORCHELASTIC_RUN_ID, ...) and runs the script. When one rank fails,
the job ends (See Note [Ending a failed job]) and the launcher names the failed rank and
prints its error, as torchrun does. One node: for many machines, start the ranks with your
MPI launcher (`mpiexec -f hosts -n 16 python train.py`).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid

__all__ = ["main", "get_args_parser"]

_OMP_WARNING = (
    "\n*****************************************\n"
    "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to "
    "avoid your system being overloaded, please further tune the variable for optimal "
    "performance in your application as needed. \n"
    "*****************************************"
)


def get_args_parser() -> argparse.ArgumentParser:
    """torchrun's options; those about elastic rendezvous are accepted and have no effect."""
    parser = argparse.ArgumentParser(
        prog="python -m dyngrad.distributed.run",
        description="Start N ranks of a training script through mpiexec (torchrun's options).",
    )
    add = parser.add_argument
    add("--nnodes", default="1", help="number of nodes: 1 (use mpiexec for more)")
    add("--nproc-per-node", "--nproc_per_node", default="1", help="ranks to start: int, auto")
    add("--node-rank", "--node_rank", type=int, default=0)
    add("--master-addr", "--master_addr", default="127.0.0.1")
    add("--master-port", "--master_port", type=int, default=29500)
    add("--standalone", action="store_true")
    for ignored in ("rdzv-backend", "rdzv-endpoint", "rdzv-id", "rdzv-conf", "start-method",
                    "log-dir", "redirects", "tee", "local-ranks-filter", "local-addr",
                    "monitor-interval", "max-restarts"):  # fmt: skip
        add(f"--{ignored}", f"--{ignored.replace('-', '_')}", help="accepted, no effect")
    add("--role", default="default")
    add("-m", "--module", action="store_true", help="run the target as `python -m`")
    add("--no-python", "--no_python", action="store_true", help="run the target as a program")
    add("--run-path", "--run_path", action="store_true", help="run the target with runpy")
    add("--mpiexec", default=None, help="the MPI launcher to use (default: the one installed)")
    add("training_script", help="the script (or module, or program) each rank runs")
    add("training_script_args", nargs=argparse.REMAINDER)
    return parser


def _nproc(value: str) -> int:
    if value in ("auto", "cpu"):
        return os.cpu_count() or 1
    try:
        return int(value)
    except ValueError:
        raise SystemExit(
            f"dyngrad.distributed.run: --nproc-per-node {value!r}: dyngrad runs on CPUs; give "
            "a number of ranks (or auto)"
        ) from None


def _mpiexec(choice: str | None) -> str:
    beside_python = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    for candidate in (choice, beside_python, shutil.which("mpiexec")):
        if candidate and os.path.exists(candidate):
            return candidate
    raise SystemExit(
        "dyngrad.distributed.run: no mpiexec found; install MPI with `pip install "
        "'dyngrad[distributed]'` (it brings mpich) or pass --mpiexec PATH"
    )


def _environment(options, nproc: int, errors: str) -> dict:
    env = dict(os.environ)
    if nproc > 1 and "OMP_NUM_THREADS" not in env:
        print(_OMP_WARNING, file=sys.stderr)
        env["OMP_NUM_THREADS"] = "1"
    env.update(
        MASTER_ADDR=options.master_addr,
        MASTER_PORT=str(options.master_port),
        WORLD_SIZE=str(nproc),
        LOCAL_WORLD_SIZE=str(nproc),
        GROUP_RANK=str(options.node_rank),
        GROUP_WORLD_SIZE="1",
        ROLE_NAME=options.role,
        ROLE_WORLD_SIZE=str(nproc),
        TORCHELASTIC_RUN_ID=env.get("TORCHELASTIC_RUN_ID", str(uuid.uuid4())),
        TORCHELASTIC_RESTART_COUNT="0",
        TORCHELASTIC_MAX_RESTARTS="0",
        DYNGRAD_ERROR_DIR=errors,
    )
    return env


def _command(options, nproc: int) -> list[str]:
    how = ["--module"] if options.module else ["--no-python"] if options.no_python else []
    return [
        _mpiexec(options.mpiexec),
        "-n",
        str(nproc),
        sys.executable,
        "-m",
        "dyngrad.distributed.run_rank",
        *how,
        options.training_script,
        *options.training_script_args,
    ]


def main(argv: list[str] | None = None) -> int:
    """Run the job; its exit status is 0 when every rank succeeded."""
    options = get_args_parser().parse_args(argv)
    if options.nnodes not in ("1", "1:1"):
        raise SystemExit(
            "dyngrad.distributed.run starts the ranks of one node; for several machines start "
            "them with your MPI launcher (mpiexec -f hostfile -n N python script.py)"
        )
    nproc = _nproc(options.nproc_per_node)
    errors = tempfile.mkdtemp(prefix="dyngrad-run-")
    started = time.time()
    try:
        done = subprocess.run(_command(options, nproc), env=_environment(options, nproc, errors))
        if done.returncode != 0:
            _report_failure(options.training_script, errors, done.returncode, started)
            return 1
        return 0
    finally:
        shutil.rmtree(errors, ignore_errors=True)


def _report_failure(script: str, errors: str, status: int, started: float) -> None:
    """torchrun's summary of a failed job: the first rank that failed, its error."""
    records = []
    for name in sorted(os.listdir(errors)):
        try:
            with open(os.path.join(errors, name)) as f:
                records.append((os.path.getmtime(f.name), json.load(f)))
        except (OSError, ValueError):
            continue
    line = "=" * 60
    lines = [line, f"{script} FAILED", "-" * 60, "Root Cause (first observed failure):"]
    if records:
        _, first = min(records, key=lambda item: item[0])
        message = first["message"]
        lines += [
            f"[0]:\n  time      : {time.strftime('%Y-%m-%d_%H:%M:%S', time.localtime())}",
            f"  host      : {socket.gethostname()}",
            f"  rank      : {first['rank']} (local_rank: {first['rank']})",
            "  exitcode  : 1",
            f"  error     : {message['message']}",
            "  traceback :\n" + message["extraInfo"]["py_callstack"].rstrip(),
        ]
    else:
        lines.append(f"[0]:\n  exitcode  : {status} (mpiexec; see the ranks' output above)")
    lines.append(line)
    print("\n".join(lines), file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
