"""`import torch` as dyngrad: the import hook behind `python -m dyngrad run SCRIPT.py`."""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys

from . import version
from ._tensor import Tensor

__all__ = [
    "install",
    "uninstall",
    "installed",
    "MissingTorchAPIError",
    "MissingTorchImportError",
]


class MissingTorchAPIError(AttributeError):
    """A torch attribute dyngrad lacks (an AttributeError, so `hasattr` still answers)."""


class MissingTorchImportError(ImportError):
    """A torch name or module dyngrad lacks, met by `import` / `from torch import ...`."""


def message(api: str) -> str:
    return (
        f"dyngrad does not implement {api}\n(the script runs on dyngrad through "
        "`python -m dyngrad run`; run it with PyTorch for this API)"
    )


# Note [torch alias]
# A meta-path finder answers every `torch[.x.y]` import with the module `dyngrad[.x.y]`
# itself (the same object under both names), so `torch.nn.Linear is dyngrad.nn.Linear`.
# Each aliased module gets a module-level __getattr__ that turns a missing name into
# "dyngrad does not implement torch.X": a MissingTorchAPIError (an AttributeError, so hasattr()
# and getattr(m, x, default) behave), or a MissingTorchImportError inside `from torch import X`,
# where Python would otherwise replace it by a bare "cannot import name".


# The finder and loader follow importlib's protocols without subclassing importlib.abc,
# whose import loads importlib.resources, tempfile and shutil (tests/test_import.py).
class _AliasLoader:
    def __init__(self, module) -> None:
        self.module = module

    def create_module(self, spec):
        return self.module

    def exec_module(self, module) -> None:
        pass


class TorchAliasFinder:
    def find_spec(self, fullname: str, path=None, target=None):
        if fullname != "torch" and not fullname.startswith("torch."):
            return None
        real = "dyngrad" + fullname[len("torch") :]
        try:
            module = importlib.import_module(real)
        except ModuleNotFoundError as exc:
            if exc.name is not None and (real == exc.name or real.startswith(exc.name + ".")):
                raise ModuleNotFoundError(message(fullname), name=fullname) from None
            raise
        _add_missing_api_errors(module, fullname)
        _alias_loaded_submodules()
        return importlib.util.spec_from_loader(fullname, _AliasLoader(module))


def _alias_loaded_submodules() -> None:
    # Note [Submodules named like a function]: importing `torch.autograd.gradcheck` for the
    # first time sets the attribute `gradcheck` of `torch.autograd` to the submodule, which
    # would replace the function `torch.autograd.gradcheck` (in PyTorch the submodule was
    # imported under its own name long before, so nothing is set). Every dyngrad module
    # already loaded is therefore registered under its torch name up front: Python then finds
    # it in sys.modules and leaves the parent's attributes alone.
    for name, module in list(sys.modules.items()):
        if name.startswith("dyngrad.") and module is not None:
            alias = "torch" + name[len("dyngrad") :]
            if alias not in sys.modules:
                _add_missing_api_errors(module, alias)
                sys.modules[alias] = module


def _add_missing_api_errors(module, torch_name: str) -> None:
    if module.__dict__.get("_torch_alias_of") is not None:
        return
    previous = module.__dict__.get("__getattr__")

    def __getattr__(name: str):  # noqa: N807 - the module hook Python looks up
        if previous is not None:
            try:
                return previous(name)
            except AttributeError:
                pass
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}")
        api = f"{torch_name}.{name}"
        if _in_from_import(sys._getframe(1)):
            raise MissingTorchImportError(message(api), name=api)
        raise MissingTorchAPIError(message(api), name=name, obj=module)

    module.__getattr__ = __getattr__
    module._torch_alias_of = torch_name


def _in_from_import(frame) -> bool:
    # `from torch import X` reaches __getattr__ from the IMPORT_FROM instruction.
    if frame is None:
        return False
    import dis  # an error path only

    for instruction in dis.get_instructions(frame.f_code):
        if instruction.offset == frame.f_lasti:
            return instruction.opname == "IMPORT_FROM"
    return False


def _tensor_getattr(self, name: str):
    if name.startswith("_"):
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
    raise MissingTorchAPIError(message(f"torch.Tensor.{name}"), name=name, obj=self)


_finder = TorchAliasFinder()

# Note [torch alias in worker processes]
# A DataLoader worker started by spawn or forkserver is a fresh interpreter: it runs the
# parent's main script again (as `__mp_main__`) before any dyngrad code, so its `import
# torch` would find the real torch, or none. Its sys.path is the parent's, though, so
# `install` puts `_torch_shim/` first on it: that folder holds a package named `torch`
# whose import installs the alias and hands back dyngrad (Python's import returns what
# sys.modules holds once the module ran). The parent never reaches it: the finder above
# answers first.
SHIM_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_torch_shim")


def installed() -> bool:
    """Whether `import torch` means dyngrad in this process."""
    return _finder in sys.meta_path


def install() -> None:
    """Make `import torch` (and `torch.*`) import dyngrad, with clear missing-API errors."""
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)
    if SHIM_PATH not in sys.path:
        sys.path.insert(0, SHIM_PATH)
    if "__getattr__" not in Tensor.__dict__:
        Tensor.__getattr__ = _tensor_getattr
    torch = importlib.import_module("torch")
    # what scripts compare with "2.x", naming dyngrad: "2.13.0+dyngrad.0.1.0"
    torch.__version__ = version.__version__


def become_torch() -> None:
    """Install the alias from inside the shim's `import torch` (worker processes), making
    sys.modules["torch"] dyngrad. See Note [torch alias in worker processes]."""
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)
    if "__getattr__" not in Tensor.__dict__:
        Tensor.__getattr__ = _tensor_getattr
    dyngrad = sys.modules[__name__.rpartition(".")[0]]
    _add_missing_api_errors(dyngrad, "torch")
    dyngrad.__version__ = version.__version__
    sys.modules["torch"] = dyngrad
    _alias_loaded_submodules()


def uninstall() -> None:
    """Undo `install` (for tests): torch imports reach the real torch again."""
    if _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    while SHIM_PATH in sys.path:
        sys.path.remove(SHIM_PATH)
    if Tensor.__dict__.get("__getattr__") is _tensor_getattr:
        del Tensor.__getattr__
    for name in [n for n in sys.modules if n == "torch" or n.startswith("torch.")]:
        module = sys.modules[name]
        if getattr(module, "__name__", "").startswith("dyngrad"):
            del sys.modules[name]
    dyngrad = sys.modules[__name__.rpartition(".")[0]]
    dyngrad.__version__ = version.dyngrad


def run_script(path: str, args: list[str]) -> None:
    """Run `path` as `__main__` with `import torch` meaning dyngrad, and `sys.argv` its own."""

    import runpy

    if not os.path.exists(path):
        raise SystemExit(f"dyngrad run: can't open file {path!r}: no such file")
    install()
    sys.argv = [path, *args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    runpy.run_path(path, run_name="__main__")
