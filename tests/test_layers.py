"""The layers of DESIGN.md hold: imports point down only, no import cycle, no deferred import.

backend < tensor < graph < ops < autograd < library < tools < the package's surface. A module
may import its own layer or lower ones at module level. A function-local import of dyngrad's
own modules is not allowed at all (a lower layer that must call up is handed the function
when the higher layer loads; see Note [Calls up the layers]); function-local imports are for
optional third-party packages only. `if TYPE_CHECKING:` imports are annotations, not imports.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import dyngrad

PACKAGE = Path(dyngrad.__file__).resolve().parent

LAYERS = ["backend", "tensor", "graph", "ops", "autograd", "library", "tools", "surface"]
TENSOR = {
    "_tensor",
    "_tensor_str",
    "_tensor_errors",
    "_tensor_kinds",
    "_handles",
    "_typename",
    "size",
    "return_types",
}
# the device namespaces (cuda, cpu, accelerator) sit with amp, which cuda.amp re-exports
TOOLS = {
    "doctor",
    "viz",
    "compile",
    "_dynamo",
    "compiler",
    "amp",
    "cuda",
    "cpu",
    "accelerator",
    "distributed",
    "cli",
    "_torch_alias",
    "_torch_shim",
    "__main__",
    "onnx",
    "profiler",
}
# optional extras and heavy parts: imported where they are needed, never at import time
# (ml_dtypes: bfloat16's NumPy dtype, a second of import; See Note [bfloat16 on demand])
OPTIONAL = {
    "ml_dtypes",
    "graphviz",
    "matplotlib",
    "safetensors",
    "cupy",
    "mpi4py",
    "tensorboard",
    "tqdm",
    "PIL",
    "IPython",
    "threadpoolctl",
}
# standard-library parts that rare paths need (worker processes, thread pools, rendezvous
# URLs, an error's opcode names, checkpoint archives, the doctor's spool): imported where used, as loading them would slow down
# `import dyngrad` (tests/test_import.py)
DEFERRED_STDLIB = {
    "multiprocessing",
    "concurrent",
    "urllib",
    "pickletools",
    "zipfile",
    "tempfile",
    "shutil",
    "dis",
    "runpy",
    "traceback",  # anomaly mode's stacks, a worker's error
    "random",  # a worker's seeding
    "queue",  # a worker's task queue
    "signal",  # a worker's exit by signal
    "select",  # a worker's result pipe
    "dataclasses",  # a worker's WorkerInfo
}


def layer_of(module: str) -> str:
    """The layer of a module named `dyngrad.x.y`."""
    if module == "dyngrad":
        return "surface"
    first = module.split(".")[1]
    if first == "runtime":  # DESIGN.md's backend layer
        return "backend"
    if first in TENSOR:
        return "tensor"
    if first in ("graph", "ops", "autograd"):
        return first
    if first in TOOLS:
        return "tools"
    return "library"


def _modules() -> dict:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = (path, parts[-1] == "__init__")
    return found


MODULES = _modules()


def _targets(module: str, is_package: bool, node) -> list:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - node.level + 1]
        name = ".".join(base + ([node.module] if node.module else []))
    else:
        name = node.module or ""
    return [f"{name}.{a.name}" if f"{name}.{a.name}" in MODULES else name for a in node.names]


def _imports(module: str):
    """(target, line, at module level) for every import in `module`."""
    path, is_package = MODULES[module]
    tree = ast.parse(path.read_text())
    found = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                for target in _targets(module, is_package, child):
                    found.append((target, child.lineno, not inner))
            visit(child, inner)

    visit(tree, False)
    return found


def _graph() -> dict:
    edges = {m: set() for m in MODULES}
    for module in MODULES:
        for target, _, top in _imports(module):
            if not top or not target.startswith("dyngrad"):
                continue
            parts = target.split(".")
            # importing a.b.c runs the packages a.b and a.b.c too
            for k in range(2, len(parts) + 1):
                name = ".".join(parts[:k])
                if name in MODULES and name != module and not module.startswith(name + "."):
                    edges[module].add(name)
    return edges


def test_every_module_has_a_layer():
    assert {layer_of(m) for m in MODULES} <= set(LAYERS)
    assert layer_of("dyngrad.ops.table.record") == "ops"
    assert layer_of("dyngrad.graph.node") == "graph"


def test_imports_point_down():
    upward = []
    for module, targets in _graph().items():
        rank = LAYERS.index(layer_of(module))
        for target in targets:
            if LAYERS.index(layer_of(target)) > rank:
                upward.append(
                    f"{module} ({layer_of(module)}) imports {target} ({layer_of(target)})"
                )
    assert not upward, "\n".join(sorted(upward))


def test_no_import_cycle():
    edges = _graph()
    state: dict = {}
    cycle: list = []

    def visit(node, path):
        # iterative enough for ~300 modules; recursion depth is the longest import chain
        state[node] = "open"
        for child in sorted(edges[node]):
            if state.get(child) == "open":
                cycle.extend(path[path.index(child) :] + [child])
                return True
            if child not in state and visit(child, path + [child]):
                return True
        state[node] = "done"
        return False

    for module in sorted(edges):
        if module not in state and visit(module, [module]):
            break
    assert not cycle, " -> ".join(cycle)


def test_no_deferred_import_of_our_own_modules():
    deferred = []
    for module in MODULES:
        for target, line, top in _imports(module):
            if top:
                continue
            root = target.split(".")[0]
            if root == "dyngrad" or (root not in OPTIONAL | DEFERRED_STDLIB and root != "torch"):
                deferred.append(f"{module}:{line} imports {target} inside a function")
    assert not deferred, "\n".join(deferred)


def test_the_package_never_imports_torch():
    found = [
        f"{module}:{line}"
        for module in MODULES
        for target, line, _ in _imports(module)
        if target == "torch" or target.startswith("torch.")
    ]
    assert not found, found


@pytest.mark.parametrize("order", [("ops", "autograd"), ("autograd", "ops"), ("nn", "graph")])
def test_any_import_order_works(order, tmp_path):
    # a fresh interpreter importing two subpackages first, in either order (the old cycle
    # broke when two import lines in __init__ were swapped)
    import subprocess
    import sys

    code = "; ".join(f"import dyngrad.{name}" for name in order) + "; import dyngrad; "
    code += "print(dyngrad.ones(2).sum().item())"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "2.0"
