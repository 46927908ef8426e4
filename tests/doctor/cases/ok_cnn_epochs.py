"""A complete image classifier done right: DataLoader, CNN with batch norm and dropout,
StepLR per epoch, model.train()/eval() each epoch, accuracy from softmax(dim=1), a loss
history of numbers, predictions under no_grad, and a flatten with view()."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 6, 3, padding=1)
        self.bn = nn.BatchNorm2d(6)
        self.drop = nn.Dropout(0.25)
        self.fc = nn.Linear(6 * 4 * 4, 5)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn(self.conv(x))), 2)
        x = self.drop(x.view(x.size(0), -1))
        return self.fc(x)


torch.manual_seed(0)
train_set = TensorDataset(torch.randn(48, 1, 8, 8), torch.randint(0, 5, (48,)))
val_set = TensorDataset(torch.randn(16, 1, 8, 8), torch.randint(0, 5, (16,)))
train_loader = DataLoader(train_set, batch_size=12, shuffle=True)
val_loader = DataLoader(val_set, batch_size=8)
model = SmallCNN()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
history = {"train_loss": [], "val_acc": []}
for epoch in range(3):
    model.train()
    running = 0.0
    for images, labels in train_loader:
        optimizer.zero_grad()
        loss = criterion(model(images), labels)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        optimizer.step()
        running += loss.item() * images.size(0)
    scheduler.step()
    history["train_loss"].append(running / len(train_set))
    model.eval()
    correct, predictions = 0, []
    with torch.no_grad():
        for images, labels in val_loader:
            probs = F.softmax(model(images), dim=1)
            predictions.append(probs.argmax(dim=1))
            correct += (probs.argmax(dim=1) == labels).sum().item()
    history["val_acc"].append(correct / len(val_set))
    print(epoch, history["train_loss"][-1], history["val_acc"][-1], torch.cat(predictions).shape)
