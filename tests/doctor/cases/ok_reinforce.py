"""REINFORCE done right: log-probabilities saved during an episode (with their graphs) and
cleared after each episode's backward; softmax over the actions of a 1-D state."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine = nn.Linear(4, 16)
        self.dropout = nn.Dropout(p=0.2)
        self.head = nn.Linear(16, 2)
        self.saved_log_probs, self.rewards = [], []

    def forward(self, state):
        return F.softmax(self.head(F.relu(self.dropout(self.affine(state)))), dim=-1)


torch.manual_seed(0)
policy = Policy()
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
for episode in range(6):
    state = torch.randn(4)
    for _t in range(8):
        probs = policy(state)
        m = Categorical(probs)
        action = m.sample()
        policy.saved_log_probs.append(m.log_prob(action))
        policy.rewards.append(float(action.item() == 1))
        state = torch.randn(4)
    returns = torch.tensor(policy.rewards)
    returns = (returns - returns.mean()) / (returns.std() + 1e-6)
    loss = torch.stack([-lp * r for lp, r in zip(policy.saved_log_probs, returns)]).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    del policy.saved_log_probs[:]
    del policy.rewards[:]
    print(episode, round(loss.item(), 3))
