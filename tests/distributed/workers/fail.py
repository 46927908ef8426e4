"""A job whose rank 1 fails (`raise`) or leaves early (`exit`) while rank 0 waits for it."""

import os
import sys
from datetime import timedelta

import dyngrad as torch
import dyngrad.distributed as dist

dist.init_process_group("gloo", timeout=timedelta(seconds=60))
rank = dist.get_rank()
names = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "OMP_NUM_THREADS")
values = " ".join(str(os.environ.get(name)) for name in names)
sys.stdout.write(f"rank {rank}: {values} {dist.is_torchelastic_launched()}\n")  # one write
sys.stdout.flush()
if rank == 1 and sys.argv[1] == "raise":
    raise ValueError("boom on rank 1")
if rank == 1 and sys.argv[1] == "exit":
    sys.exit(3)
dist.all_reduce(torch.ones(1))
print(f"rank {rank}: not reached")
