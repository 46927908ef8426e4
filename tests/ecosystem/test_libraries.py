"""einops, torchinfo, torchsummary and tqdm run on dyngrad under the torch alias (`dyngrad run`,
`dyngrad.install_as_torch()`), printing what they print under PyTorch."""

from __future__ import annotations

from .scripts import needs, run

MODELS = """
import torch
import torch.nn as nn

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3), nn.ReLU(), nn.Dropout(0.25),
        )
        self.embed = nn.Embedding(10, 4)
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(16 * 5 * 5, 32), nn.GELU(),
                                  nn.Linear(32, 10))

    def forward(self, x):
        return self.head(self.features(x))


net = Net()
net.embed.weight.requires_grad_(False)
mlp = nn.Sequential(nn.Linear(20, 64), nn.Tanh(), nn.LayerNorm(64), nn.Linear(64, 3))
"""

TORCHINFO = (
    MODELS
    + """
from torchinfo import summary

print(summary(net, input_size=(2, 1, 14, 14), verbose=0))
print(summary(mlp, input_size=(5, 20), verbose=0, depth=1,
              col_names=("input_size", "output_size", "num_params", "params_percent",
                         "kernel_size", "mult_adds", "trainable")))
"""
)


@needs("torchinfo")
def test_torchinfo_prints_the_table_torch_prints(tmp_path):
    ours = run(tmp_path, TORCHINFO, under="dyngrad").stdout
    assert "│    └─Conv2d: 2-5                       [2, 16, 5, 5]             1,168" in ours
    assert "Total params: 14,466" in ours, ours
    assert "Non-trainable params: 40" in ours  # the frozen embedding
    assert run(tmp_path, TORCHINFO, under="torch").stdout == ours


TORCHSUMMARY = (
    MODELS
    + """
from torchsummary import summary

summary(net, (1, 14, 14), device="cpu")
summary(mlp, (20,), batch_size=5, device="cpu")
"""
)


@needs("torchsummary")
def test_torchsummary_prints_the_table_torch_prints(tmp_path):
    ours = run(tmp_path, TORCHSUMMARY, under="dyngrad").stdout
    assert "Conv2d-1            [-1, 8, 14, 14]" in ours, ours
    assert run(tmp_path, TORCHSUMMARY, under="torch").stdout == ours


EINOPS = """
import torch
from einops import rearrange, reduce, repeat
from einops.layers.torch import Rearrange, Reduce

x = torch.arange(24.0).reshape(2, 3, 4).requires_grad_()
y = rearrange(x, "b c (h w) -> b (c h) w", h=2)
print(type(y).__name__, tuple(y.shape), y[1, 2].tolist())
print(reduce(x, "b c d -> b", "max").tolist(), tuple(repeat(x, "b c d -> b c d r", r=2).shape))
layer = torch.nn.Sequential(Rearrange("b c d -> b d c"), Reduce("b d c -> b d", "mean"))
out = layer(x)
out.sum().backward()
print(out.tolist(), x.grad[0, 0].tolist(), out.grad_fn is not None)
"""


@needs("einops")
def test_einops_functions_and_layers_under_the_alias(tmp_path):
    ours = run(tmp_path, EINOPS, under="dyngrad").stdout
    assert ours.splitlines()[0] == "Tensor (2, 6, 2) [16.0, 17.0]"
    assert run(tmp_path, EINOPS, under="torch").stdout == ours


EINOPS_PLAIN = """
import dyngrad as torch
from einops import rearrange

x = torch.arange(6.0).reshape(2, 3)
print(rearrange(x, "a b -> b a").tolist())
"""


@needs("einops")
def test_einops_after_install_as_torch(tmp_path):
    # without the alias einops cannot tell a dyngrad Tensor from any other object; a notebook
    # calls dyngrad.install_as_torch() first
    source = "import dyngrad\ndyngrad.install_as_torch()\n" + EINOPS_PLAIN
    done = run(tmp_path, source, under="plain")
    assert done.stdout == "[[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]\n"


TQDM = """
import torch
from torch.utils.data import DataLoader, TensorDataset
from tqdm import tqdm

data = TensorDataset(torch.arange(10.0).unsqueeze(1))
total = 0.0
for (batch,) in tqdm(DataLoader(data, batch_size=4), desc="epoch", file=__import__("sys").stdout,
                     ascii=True, bar_format="{desc}: {n_fmt}/{total_fmt}"):
    total += batch.sum().item()
print(total)
"""


@needs("tqdm")
def test_tqdm_over_a_dataloader(tmp_path):
    ours = run(tmp_path, TQDM, under="dyngrad").stdout
    assert ours.rstrip().endswith("45.0") and "epoch: 3/3" in ours, ours
