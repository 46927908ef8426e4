"""Data-parallel training of the 784-MLP: step time on 1 and 2 ranks for the same global
batch, and how much of the gradient all-reduce DDP hides behind backward.

    python bench/distributed.py [--steps 30] [--batch 128] [--repeats 3]

Each configuration is an MPI job (mpiexec -n R) running this file with `--worker`: the
784-512-512-10 MLP of bench/training.py, SGD with momentum, cross-entropy, global batch B
split evenly over the ranks, wrapped in DistributedDataParallel when R > 1. Medians, every
step started together on all ranks (a barrier): `step`, a whole training step; `no comm`, the
same step under `no_sync()` (no communication at all); `all-reduce`, the same buckets
all-reduced by themselves. What the all-reduce adds to a step is step - no comm; the hidden
fraction is 1 - (step - no comm) / all-reduce; by bytes, it is the share of the buckets whose
all-reduce had completed when backward's last gradient was ready. One rank runs once with
every core for its matrix products and once with one thread; two ranks get a thread each
(OMP_NUM_THREADS=1, as torchrun sets).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def worker(steps: int, batch: int, bucket_cap_mb) -> None:
    import numpy as np
    import training

    import dyngrad as t
    import dyngrad.distributed as dist

    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    if os.environ.get("OMP_NUM_THREADS"):  # dyngrad's own pool does not read it (torch's does)
        t.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
    model = training._mlp(t)
    if world > 1:
        model = t.nn.parallel.DistributedDataParallel(model, bucket_cap_mb=bucket_cap_mb)
    opt = t.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x, y = training._data(t, 2, ((batch, 784), "float"), ((batch,), 10))
    local = slice(rank * batch // world, (rank + 1) * batch // world)
    x, y = x[local], y[local]
    loss_fn = t.nn.CrossEntropyLoss()

    def step() -> None:
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()

    record = {"ranks": world, "step": _timed(step, steps, dist)}
    if world > 1:
        overlapped = []
        record["step"] = _timed(
            step, steps, dist, lambda: overlapped.append(model.reducer.overlapped)
        )
        record["overlapped"] = statistics.median(overlapped)
        with model.no_sync():  # the same step without any communication
            record["local"] = _timed(step, steps, dist)
        record.update(_alone(model, steps, np, dist))
    if rank == 0:
        print("RESULT " + json.dumps(record), flush=True)
    dist.destroy_process_group()


def _timed(step, steps: int, dist, after=None) -> float:
    """The median time of `step` on every rank together, after 3 warm-ups: from a barrier to
    the next, so that a rank's wait for a slower one counts with or without communication."""
    times = []
    for i in range(steps + 3):
        dist.barrier()
        start = time.perf_counter()
        step()
        dist.barrier()
        if i >= 3:
            times.append(time.perf_counter() - start)
            if after is not None:
                after()
    return statistics.median(times)


def _alone(model, steps: int, np, dist) -> dict:
    """The buckets of the last iteration all-reduced by themselves, all started at once."""
    reducer = model.reducer
    sizes = [sum(reducer.params[i].numel() for i in b.indices) for b in reducer.buckets]
    buffers = [np.ones(n, np.float32) for n in sizes]
    job = dist.mpi.job()
    samples = []
    for _ in range(steps):
        dist.barrier()
        start = time.perf_counter()
        requests = [reducer.pg.comm.Iallreduce(job.MPI.IN_PLACE, b) for b in buffers]
        job.MPI.Request.Waitall(requests)
        samples.append(time.perf_counter() - start)
    return {"allreduce": statistics.median(samples), "buckets": len(sizes), "floats": sum(sizes)}


def run(ranks: int, threads, steps: int, batch: int, bucket_cap_mb) -> dict:
    mpiexec = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    env = dict(os.environ, MPIEXEC_TIMEOUT="600")
    env.pop("OMP_NUM_THREADS", None)
    if threads is not None:
        env["OMP_NUM_THREADS"] = threads
    command = [mpiexec, "-n", str(ranks), sys.executable, os.path.abspath(__file__), "--worker"]
    command += ["--steps", str(steps), "--batch", str(batch)]
    if bucket_cap_mb is not None:
        command += ["--bucket-cap-mb", str(bucket_cap_mb)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    line = next(line for line in done.stdout.splitlines() if line.startswith("RESULT "))
    return json.loads(line[len("RESULT ") :])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--repeats", type=int, default=3, help="jobs per configuration")
    parser.add_argument("--bucket-cap-mb", type=float, default=None)
    parser.add_argument("--worker", action="store_true")
    options = parser.parse_args()
    if options.worker:
        worker(options.steps, options.batch, options.bucket_cap_mb)
        return
    configs = [(1, None), (1, "1"), (2, "1")]  # (ranks, OMP_NUM_THREADS)
    runs: dict = {config: [] for config in configs}
    for _ in range(options.repeats):  # interleaved, so that drift hits every configuration
        for ranks, threads in configs:
            runs[ranks, threads].append(
                run(ranks, threads, options.steps, options.batch, options.bucket_cap_mb)
            )
    print(f"784-512-512-10 MLP, SGD momentum, global batch {options.batch}, {os.cpu_count()} CPUs")
    print("medians of", options.repeats, "jobs of", options.steps, "steps; ms per step")
    for (ranks, threads), records in runs.items():
        step = statistics.median(r["step"] for r in records)
        cores = "every core" if threads is None else f"{threads} thread"
        print(f"  {ranks} rank{'s' * (ranks > 1)} ({cores} each): {step * 1e3:7.2f}")
    _report_overlap(runs[2, "1"])


def _report_overlap(records: list) -> None:
    def median(key):
        return statistics.median(r[key] for r in records)

    step, local, alone = median("step"), median("local"), median("allreduce")
    hidden = min(1.0, max(0.0, 1 - (step - local) / alone))
    print(f"2 ranks: {records[0]['buckets']} buckets, {records[0]['floats']} floats")
    print(f"  step without communication (no_sync): {local * 1e3:7.2f}")
    print(f"  the buckets all-reduced alone:        {alone * 1e3:7.2f}")
    print(f"  all-reduce hidden behind backward, by time:      {hidden:4.0%}")
    print(f"  all-reduce done before backward ended, by bytes: {median('overlapped'):4.0%}")


if __name__ == "__main__":
    main()
