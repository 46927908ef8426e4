import dyngrad as torch
import dyngrad.nn as nn
import dyngrad.optim as optim
from dyngrad.utils.data import DataLoader, TensorDataset
import numpy as np

# Train a small MLP to tell three interleaved spirals apart: the data is made here with
# NumPy (fixed seed), so the example runs out of the box, in seconds, on a CPU.
# Run it under real PyTorch by changing `dyngrad` to `torch` in the imports.

CLASSES, POINTS_PER_CLASS, EPOCHS = 3, 400, 15


def make_spirals(points_per_class, classes, rng):
    """Three arms of a spiral in the plane, with a little noise; labels 0..classes-1."""
    radius = np.tile(np.linspace(0.05, 1.0, points_per_class), classes)
    labels = np.repeat(np.arange(classes), points_per_class)
    angle = radius * 6.0 + labels * (2 * np.pi / classes)
    angle += rng.normal(scale=0.25, size=angle.shape)
    points = np.stack([radius * np.sin(angle), radius * np.cos(angle)], axis=1)
    return points.astype(np.float32), labels.astype(np.int64)


def accuracy(model, x, y):
    model.eval()
    with torch.no_grad():
        predicted = model(x).argmax(dim=1)
    model.train()
    return (predicted == y).float().mean().item()


def main():
    rng = np.random.default_rng(0)
    torch.manual_seed(0)
    points, labels = make_spirals(POINTS_PER_CLASS, CLASSES, rng)
    order = rng.permutation(len(labels))
    split = int(0.8 * len(labels))
    train_idx, test_idx = order[:split], order[split:]
    x_train, y_train = torch.from_numpy(points[train_idx]), torch.from_numpy(labels[train_idx])
    x_test, y_test = torch.from_numpy(points[test_idx]), torch.from_numpy(labels[test_idx])
    loader = DataLoader(TensorDataset(x_train, y_train), batch_size=32, shuffle=True)

    model = nn.Sequential(
        nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, CLASSES)
    )
    optimizer = optim.Adam(model.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()
    print(
        f"spirals: {len(train_idx)} training points, {len(test_idx)} test points, {CLASSES} classes"
    )

    for epoch in range(EPOCHS):
        total_loss = 0.0
        for batch_x, batch_y in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(batch_x), batch_y)
            loss.backward()
            optimizer.step()
            total_loss += loss.item() * len(batch_y)
        print(
            f"epoch {epoch + 1:2d}/{EPOCHS}: loss {total_loss / len(train_idx):.4f}, "
            f"train accuracy {accuracy(model, x_train, y_train):.3f}"
        )

    print(f"test accuracy: {accuracy(model, x_test, y_test):.3f}")


if __name__ == "__main__":
    main()
