"""Run on every rank of a job: scripts of the bug collection under the doctor, one after the
other; `OUT/rank{r}.json` lists this rank's findings per script."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import run_case  # noqa: E402

import dyngrad.distributed as dist  # noqa: E402

records = []
for name in sys.argv[2:]:
    findings, error = run_case(Path(name))
    records.append(
        {
            "script": Path(name).name,
            "findings": [[f.kind, f.line, f.file] for f in findings],
            "error": None if error is None else repr(error),
        }
    )
rank = dist.mpi.current_job().rank
with open(f"{sys.argv[1]}/rank{rank}.json", "w") as f:  # a file: the ranks' stdout interleaves
    json.dump({"rank": rank, "records": records}, f)
