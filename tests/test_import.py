"""`import dyngrad` stays fast: what it loads is checked, not timed (a timing test would flake).

bench/import_time.py measures it beside `import torch`. What made it slow was loading what
most scripts never use: ml_dtypes for bfloat16 (1-2 s; See Note [bfloat16 on demand]),
multiprocessing for DataLoader workers, concurrent.futures for intra-op threads, zipfile for
checkpoints, compiling ~250 generated functions (Note [Generated functions]).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# loaded on first use, never by `import dyngrad` (unless NumPy itself loads them)
DEFERRED = [
    "ml_dtypes",
    "multiprocessing",
    "concurrent.futures",
    "logging",
    "zipfile",
    "pickletools",
    "urllib.parse",
    "socket",
    "subprocess",
    "tempfile",
    "shutil",
    "traceback",
    "random",
    "queue",
    "signal",
    "select",
    "dataclasses",
    "dyngrad.doctor",
    "dyngrad.distributions",
    "dyngrad._dynamo",
    "dyngrad.distributed",
    "dyngrad.serialization",
    "dyngrad.ops.foreach.functions",
    "numpy.random",
    "torch",
]

PROBE = """
import json, sys
import numpy
after_numpy = set(sys.modules)
{code}
print(json.dumps({{"numpy": sorted(after_numpy), "now": sorted(sys.modules)}}))
"""


def _modules(code: str) -> tuple[set, set]:
    """(modules loaded by `import numpy`, modules loaded once `code` ran), in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(code=code)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    found = json.loads(done.stdout.splitlines()[-1])
    return set(found["numpy"]), set(found["now"])


def test_import_loads_nothing_heavy():
    numpy, loaded = _modules("import dyngrad")
    heavy = [m for m in DEFERRED if m in loaded and m not in numpy]
    assert not heavy, f"`import dyngrad` loads {heavy}: import them where they are used"
    roots = {m.split(".")[0] for m in loaded - numpy} - set(sys.stdlib_module_names)
    third_party = {r for r in roots if r not in ("dyngrad", "numpy") and "cython" not in r}
    assert not third_party, f"`import dyngrad` loads {sorted(third_party)} beyond NumPy"


def test_training_in_float32_never_loads_bfloat16_support():
    _, loaded = _modules(
        """
import dyngrad as torch
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
opt = torch.optim.Adam(model.parameters())
x, y = torch.randn(16, 4), torch.randint(0, 3, (16,))
for _ in range(2):
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
repr(model(x)), y.is_floating_point(), (y + 1).tolist(), loss.item()
torch.tensor([1, 2]).float().mean()
"""
    )
    assert "ml_dtypes" not in loaded


@pytest.mark.parametrize(
    "use",
    [
        "torch.ones(2, dtype=torch.bfloat16)",
        "torch.tensor([1.5]).bfloat16()",
        "torch.from_numpy(numpy.ones(2, dtype=__import__('ml_dtypes').bfloat16))",
        "torch.zeros(2).to(torch.bfloat16) + 1",
    ],
)
def test_bfloat16_loads_its_support_when_first_used(use):
    _, loaded = _modules(
        f"""
import dyngrad as torch
assert "ml_dtypes" not in sys.modules
t = {use}
assert str(t.dtype) == "torch.bfloat16" and t.is_floating_point(), t.dtype
assert t.tolist() in ([1.0, 1.0], [1.5]), t.tolist()
"""
    )
    assert "ml_dtypes" in loaded


def test_generated_functions_compile_on_first_call():
    _, loaded = _modules(
        """
import dyngrad as torch
trampoline = torch.add.__globals__["_trampoline"]
assert torch.add.__code__ is trampoline  # not compiled by the import
out = torch.empty(2)
assert torch.add(torch.ones(2), 1, out=out) is out and out.tolist() == [2.0, 2.0]
assert torch.add.__code__ is not trampoline and torch.add.__code__.co_name == "add"
assert torch.add(torch.ones(2), torch.ones(2)).tolist() == [2.0, 2.0]
"""
    )
    assert "dyngrad" in loaded


def test_tools_load_on_first_use_and_work_as_if_imported():
    # See Note [Parts loaded on first use]
    _, loaded = _modules(
        """
import dyngrad as torch
for name in ("dyngrad.doctor", "dyngrad.distributions", "dyngrad._dynamo",
             "dyngrad.distributed", "dyngrad.serialization", "dyngrad.func"):
    assert name not in sys.modules, name
assert {"compile", "distributions", "doctor", "vmap", "save"} <= set(dir(torch))
# Module.compile before torch.compile was ever reached
m = torch.nn.Linear(2, 2)
m.compile()
assert "dyngrad._dynamo" in sys.modules and m(torch.ones(1, 2)).shape == (1, 2)
assert callable(torch.compile) and torch.compile is torch._dynamo.eval_frame.compile
normal = torch.distributions.Normal(torch.zeros(1), torch.ones(1))
assert normal.log_prob(torch.zeros(1)).shape == (1,)
from dyngrad.func import vmap as v
assert v is torch.vmap
import dyngrad.doctor
assert callable(torch.doctor.watch)
try:
    torch.no_such_thing
except AttributeError as exc:
    assert str(exc) == "module 'dyngrad' has no attribute 'no_such_thing'", exc
else:
    raise AssertionError("no AttributeError")
"""
    )
    assert "dyngrad.doctor" in loaded


def test_distributed_helpers_reach_torch_distributed_when_first_needed():
    _, loaded = _modules(
        """
import dyngrad as torch
from dyngrad.utils.data import DistributedSampler
assert "dyngrad.distributed" not in sys.modules
# without num_replicas the sampler asks torch.distributed, which loads for it
try:
    DistributedSampler(list(range(8)))
except ValueError as exc:
    assert str(exc).startswith("Default process group has not been initialized"), exc
else:
    raise AssertionError("no ValueError")
assert "dyngrad.distributed" in sys.modules
assert list(DistributedSampler(list(range(8)), num_replicas=2, rank=1, shuffle=False)) == [1, 3, 5, 7]
"""
    )
    assert "dyngrad.distributed" in loaded


@pytest.mark.parametrize("enabled", [True, False])
def test_the_cycle_collector_is_left_as_it_was(enabled):
    # See Note [Import without collections]
    _modules(
        f"""
import gc
{"" if enabled else "gc.disable()"}
import dyngrad
assert gc.isenabled() is {enabled}
assert gc.get_freeze_count() == 0
"""
    )
