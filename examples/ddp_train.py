import os

import numpy as np

import dyngrad as torch
import dyngrad.distributed as dist
import dyngrad.nn as nn
from dyngrad.nn.parallel import DistributedDataParallel as DDP
from dyngrad.utils.data import DataLoader, DistributedSampler, TensorDataset

# Data-parallel training with DistributedDataParallel: each rank trains on its share of every
# epoch, gradients are averaged while backward runs, and every rank ends with the same model.
# Start it on several ranks, or alone (docs/distributed.md):
#
#   python -m dyngrad.distributed.run --nproc-per-node 2 examples/ddp_train.py
#   mpiexec -n 2 python examples/ddp_train.py
#   python examples/ddp_train.py                 a world of one process

# alone, without a launcher, this process is the whole job (the launchers set these)
os.environ.setdefault("RANK", "0")
os.environ.setdefault("WORLD_SIZE", "1")
dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()

# three blobs in the plane; every rank builds the same dataset, the sampler shares it out
rng = np.random.default_rng(0)
centers = np.array([[0.0, 2.0], [2.0, -1.0], [-2.0, -1.0]])
labels = rng.integers(0, 3, 600)
points = centers[labels] + rng.normal(scale=0.7, size=(600, 2))
dataset = TensorDataset(torch.tensor(points, dtype=torch.float32), torch.from_numpy(labels))
sampler = DistributedSampler(dataset, shuffle=True, seed=0)
loader = DataLoader(dataset, batch_size=64 // world, sampler=sampler)

torch.manual_seed(rank)  # different on each rank: DDP starts every replica from rank 0's
model = DDP(nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 3)))
optimizer = torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.9)
criterion = nn.CrossEntropyLoss()

if rank == 0:
    print(f"ranks: {world}, samples per rank and epoch: {len(sampler)}")
for epoch in range(8):
    sampler.set_epoch(epoch)  # a new order every epoch, the same on every rank
    total = torch.zeros(2)
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()  # the gradients are averaged over the ranks here
        optimizer.step()
        total += torch.tensor([loss.item() * len(xb), len(xb)])
    dist.all_reduce(total)  # the epoch's mean loss over every rank's samples
    if rank == 0:
        print(f"epoch {epoch}: loss {total[0].item() / total[1].item():.4f}")

# the replicas never drifted apart: every rank holds rank 0's weights
weights = torch.cat([p.detach().flatten() for p in model.parameters()])
everyone = [torch.zeros_like(weights) for _ in range(world)]
dist.all_gather(everyone, weights)
with torch.no_grad():
    accuracy = (model.module(dataset.tensors[0]).argmax(1) == dataset.tensors[1]).float().mean()
if rank == 0:
    print("replicas equal:", all(torch.equal(w, weights) for w in everyone))
    print(f"accuracy above 0.9: {accuracy.item() > 0.9}")
dist.destroy_process_group()
