"""The `dyngrad` command: `dyngrad run SCRIPT.py [args...]` runs a PyTorch script on dyngrad."""

from __future__ import annotations

import argparse
import os
import runpy
import sys

__all__ = ["main", "run_script"]


def run_script(path: str, args: list[str]) -> None:
    """Run `path` as `__main__` with `import torch` meaning dyngrad, and `sys.argv` its own."""
    from ._torch_alias import install

    if not os.path.exists(path):
        raise SystemExit(f"dyngrad run: can't open file {path!r}: no such file")
    install()
    sys.argv = [path, *args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    runpy.run_path(path, run_name="__main__")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m dyngrad",
        description="dyngrad: PyTorch's dynamic graph and autograd on NumPy, as a glass box.",
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
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of `python -m dyngrad` and of the `dyngrad` console script."""
    parser = _parser()
    options = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if options.command == "run":
        run_script(options.script, options.args)
        return 0
    parser.print_help()
    return 2
