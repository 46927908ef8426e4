"""The `dyngrad` command: `run SCRIPT.py [args...]` runs a PyTorch script on dyngrad; `doctor`
runs it under the doctor."""

from __future__ import annotations

import argparse
import sys

from . import version
from ._torch_alias import run_script
from .doctor.command import run

__all__ = ["main", "run_script"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m dyngrad",
        description="dyngrad: PyTorch's dynamic graph and autograd on NumPy, as a glass box.",
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"dyngrad {version.dyngrad} (PyTorch {version.PYTORCH} API)",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    run = commands.add_parser(
        "run",
        help="run an unmodified PyTorch script, `import torch` resolving to dyngrad",
        description="Run SCRIPT.py as __main__ with `import torch` (and torch.nn, torch.optim, "
        "torch.utils.data, ...) resolving to dyngrad. Arguments after the script "
        "are the script's own; its exit status is this command's.",
    )
    run.add_argument("script", help="the Python script to run")
    run.add_argument("args", nargs=argparse.REMAINDER, help="arguments passed to the script")
    doctor = commands.add_parser(
        "doctor",
        help="run a PyTorch script and report what silently breaks its training",
        description="Run SCRIPT.py as `run` does, watching for silent training bugs (graph "
        "cuts, growing graphs, missing zero_grad, ...), and print the findings to stderr. The "
        "script's exit status is this command's; findings are reported even if it raises.",
    )
    doctor.add_argument("--json", metavar="OUT.json", help="also write the findings as JSON")
    doctor.add_argument("script", help="the Python script to run")
    doctor.add_argument("args", nargs=argparse.REMAINDER, help="arguments passed to the script")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of `python -m dyngrad` and of the `dyngrad` console script."""
    parser = _parser()
    options = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if options.command == "run":
        run_script(options.script, options.args)
        return 0
    if options.command == "doctor":
        return run(options.script, options.args, options.json)
    parser.print_help()
    return 2
