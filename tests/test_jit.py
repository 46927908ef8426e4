"""`torch.jit`'s surface as eager PyTorch answers it: predicates, decorators, script and trace."""

from __future__ import annotations

import pytest

import dyngrad


def test_predicates_are_false_in_eager_mode(lib):
    assert lib.jit.is_scripting() is False
    assert lib.jit.is_tracing() is False


def test_decorators_return_the_function_marked(lib):
    def f(x):
        return x * 2

    for decorator, mark in ((lib.jit.unused, "unused"), (lib.jit.export, "export")):
        assert decorator(f) is f
        assert f._torchscript_modifier.startswith(mark)
    assert lib.jit.ignore(f) is f and f._torchscript_modifier.startswith("ignore")
    assert lib.jit.ignore(drop=False)(f) is f
    assert lib.jit.annotate(int, 3) == 3


def test_modules_are_not_script_modules(lib):
    assert issubclass(lib.jit.ScriptModule, lib.nn.Module)
    assert not isinstance(lib.nn.Linear(2, 2), lib.jit.ScriptModule)


def test_script_and_trace_run_eagerly_with_torchs_deprecation_warning():
    model = dyngrad.nn.Linear(2, 3)
    x = dyngrad.ones(1, 2)
    with pytest.warns(DeprecationWarning, match=r"^`torch.jit.script` is deprecated"):
        scripted = dyngrad.jit.script(model)
    with pytest.warns(DeprecationWarning, match=r"^`torch.jit.trace` is deprecated"):
        traced = dyngrad.jit.trace(model, x)
    assert scripted(x).tolist() == traced(x).tolist() == model(x).tolist()


def test_save_and_load_say_there_is_no_torchscript(tmp_path):
    with pytest.raises(NotImplementedError, match="torch.jit.save is not supported by dyngrad"):
        dyngrad.jit.save(dyngrad.nn.Linear(1, 1), tmp_path / "m.pt")
    with pytest.raises(NotImplementedError, match="state_dict saved with torch.save"):
        dyngrad.jit.load(tmp_path / "m.pt")
