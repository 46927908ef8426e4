"""Near-miss of eval-mode-not-restored: fine-tuning with the batch norm layers frozen on
purpose (each BatchNorm put in eval mode after model.train()), the model itself in train
mode."""

import torch
import torch.nn as nn


def freeze_batchnorm(model):
    for module in model.modules():
        if isinstance(module, nn.BatchNorm2d):
            module.eval()


torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
    nn.Linear(8, 2),
)  # fmt: skip
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
images, labels = torch.randn(8, 3, 10, 10), torch.randint(0, 2, (8,))
for _epoch in range(3):
    model.train()
    freeze_batchnorm(model)
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(images), labels)
    loss.backward()
    opt.step()
