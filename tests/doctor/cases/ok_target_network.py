"""DQN-style updates: a target network, a detached target, Polyak averaging under no_grad."""

import copy

import torch
import torch.nn as nn

torch.manual_seed(0)
q_net = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
target_net = copy.deepcopy(q_net)
opt = torch.optim.Adam(q_net.parameters(), lr=1e-3)
for _ in range(5):
    state, next_state = torch.randn(8, 4), torch.randn(8, 4)
    action, reward = torch.randint(0, 2, (8,)), torch.randn(8)
    q = q_net(state).gather(1, action.unsqueeze(1)).squeeze(1)
    target = reward + 0.99 * target_net(next_state).max(dim=1).values.detach()
    loss = nn.functional.smooth_l1_loss(q, target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        for tp, p in zip(target_net.parameters(), q_net.parameters()):
            tp.mul_(0.95).add_(0.05 * p)
