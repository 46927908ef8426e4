"""`python -m dyngrad doctor [--json OUT.json] SCRIPT.py [args...]`: run a script, report."""

from __future__ import annotations

import os
import runpy
import sys
import traceback

from .._torch_alias import run_script
from .session import watch
from .sites import _PACKAGE_DIR

_DOCTOR_DIR = os.path.dirname(os.path.abspath(__file__))

__all__ = ["run"]


def run(script: str, args: list[str], json_path: str | None = None) -> int:
    """Run `script` under the doctor; print the findings to stderr; return its exit status."""
    status = 0
    with watch() as report:
        try:
            run_script(script, args)
        except SystemExit as exc:
            status = _exit_status(exc)
        except KeyboardInterrupt:
            traceback.print_exc()
            status = 130
        except BaseException:
            _print_user_traceback()
            status = 1
    sys.stdout.flush()
    print("\n" + report.format_table(), file=sys.stderr)
    if json_path is not None:
        report.write_json(_rank_path(json_path, report.rank))
    return status


def _rank_path(path: str, rank) -> str:
    # each rank of a distributed job writes its own file: out.json -> out.rank1.json
    if rank is None:
        return path
    stem, ext = os.path.splitext(path)
    return f"{stem}.rank{rank[0]}{ext}"


def _exit_status(exc: SystemExit) -> int:
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _print_user_traceback() -> None:
    # as Python prints it for the script itself: without the frames of the runner before the
    # script's, nor the doctor's own hooks after them
    kind, exc, tb = sys.exc_info()
    while tb is not None and not _is_script_frame(tb):
        tb = tb.tb_next
    report = traceback.TracebackException(kind, exc, tb)
    report.stack = traceback.StackSummary.from_list(
        [frame for frame in report.stack if not frame.filename.startswith(_DOCTOR_DIR)]
    )
    print("".join(report.format()), end="", file=sys.stderr)


def _is_script_frame(tb) -> bool:
    name = tb.tb_frame.f_code.co_filename
    return not (name.startswith(_PACKAGE_DIR) or name in (runpy.__file__, "<frozen runpy>"))
