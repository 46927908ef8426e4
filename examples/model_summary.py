import dyngrad as torch
import dyngrad.nn as nn

# dyngrad only: `dyngrad.utils.summary(model, input)` runs one forward pass and prints what
# torchsummary prints (each layer's output shape and parameters) plus what only dyngrad can
# see: the activation bytes each layer's call leaves saved for backward. A frozen layer, or
# one whose input needs no gradient, saves less; `torch.no_grad()` would save nothing.


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(16 * 7 * 7, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


torch.manual_seed(0)
model = SmallCNN()
images = torch.randn(32, 1, 28, 28)
report = torch.utils.summary(model, images)
print(report)

# Freeze the convolutions: no gradient flows into them, so none of their calls saves anything;
# only the classifier's Linear keeps its input, for its weight's gradient
model.features.requires_grad_(False)
frozen = torch.utils.summary(model, images)
print(
    f"saved activations: {report.activation_bytes} bytes, frozen features: {frozen.activation_bytes}"
)
for layer in frozen.layers:
    if layer.saved_bytes:
        print(f"  {layer.name:14} {str(layer.output_shape):10} {layer.saved_bytes} bytes")
