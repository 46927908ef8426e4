"""`python -m dyngrad run`: unmodified PyTorch scripts on dyngrad, errors, exit status."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import warnings

import pytest

import dyngrad


def _run(tmp_path, source: str, *args: str):
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(source))
    return subprocess.run(
        [sys.executable, "-m", "dyngrad", "run", str(script), *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )


TRAINING_SCRIPT = """
    import sys
    import torch
    import torch.optim as optim
    from torch.utils.data import DataLoader, TensorDataset
    from torch.optim.lr_scheduler import StepLR
    import torch.backends.cudnn as cudnn
    from torch.cuda.amp import GradScaler, autocast
    import torch.autograd, torch.amp, torch.utils.data

    cudnn.deterministic = True
    torch.manual_seed(0)
    torch.cuda.manual_seed_all(0)
    assert __name__ == "__main__"
    print("argv", sys.argv[1:])
    print("cuda", torch.cuda.is_available(), torch.cuda.device_count())
    print("same", torch.optim.SGD is optim.SGD, type(torch.ones(1)).__module__)

    X = torch.randn(64, 3)
    y = X @ torch.tensor([[1.0], [-2.0], [0.5]])
    w = torch.zeros(3, 1, requires_grad=True)
    opt = optim.SGD([w], lr=0.1)
    sched = StepLR(opt, step_size=5, gamma=0.5)
    for epoch in range(10):
        for xb, yb in DataLoader(TensorDataset(X, y), batch_size=16, shuffle=True):
            opt.zero_grad()
            loss = ((xb @ w - yb) ** 2).mean()
            loss.backward()
            opt.step()
        sched.step()
    print("w", [round(v, 2) for v in w.detach().flatten().tolist()])
    print("hasattr", hasattr(torch, "definitely_missing"))
    sys.exit(int(sys.argv[1]))
"""


def test_runs_an_unmodified_torch_script(tmp_path):
    result = _run(tmp_path, TRAINING_SCRIPT, "7", "--name", "x y")
    assert result.returncode == 7, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "argv ['7', '--name', 'x y']"
    assert lines[1] == "cuda False 0"
    assert lines[2] == "same True dyngrad._tensor"
    assert lines[3] == "w [0.99, -1.98, 0.49]"  # what torch prints: the same streams
    assert lines[4] == "hasattr False"
    assert "Traceback" not in result.stderr


def test_missing_api_names_the_torch_api(tmp_path):
    result = _run(
        tmp_path,
        """
        import torch
        x = torch.ones(4)
        try:
            from torch import definitely_missing
        except ImportError as exc:
            print("import:", str(exc).splitlines()[0])
        try:
            import torch.distributed.rpc
        except ImportError as exc:
            print("module:", str(exc).splitlines()[0])
        try:
            x.definitely_missing_method()
        except AttributeError as exc:
            print("method:", str(exc).splitlines()[0])
        torch.fbgemm_pack_quantized_matrix(x)
    """,
    )
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "import: dyngrad does not implement torch.definitely_missing",
        "module: dyngrad does not implement torch.distributed.rpc",
        "method: dyngrad does not implement torch.Tensor.definitely_missing_method",
    ]
    last = result.stderr.strip().splitlines()
    assert (
        "MissingTorchAPIError: dyngrad does not implement torch.fbgemm_pack_quantized_matrix"
        in "\n".join(last)
    )
    assert "torch.fbgemm_pack_quantized_matrix(x)" in result.stderr


def test_script_errors_exit_with_status_1(tmp_path):
    result = _run(tmp_path, "raise ValueError('boom')\n")
    assert result.returncode == 1 and "ValueError: boom" in result.stderr


def test_missing_script_and_usage(tmp_path, capsys):
    from dyngrad.cli import main

    with pytest.raises(SystemExit, match="can't open file 'nope.py'"):
        main(["run", "nope.py"])
    assert main([]) == 2
    assert "run" in capsys.readouterr().out


def _warnings_of(make):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        obj = make()
    return obj, [(w.category, str(w.message)) for w in caught]


@pytest.mark.parametrize("name", ["autocast", "GradScaler"])
def test_torch_cuda_amp_warns_as_torch(torch, name):
    ours, ours_warnings = _warnings_of(lambda: getattr(dyngrad.cuda.amp, name)())
    theirs, theirs_warnings = _warnings_of(lambda: getattr(torch.cuda.amp, name)())
    assert ours_warnings == theirs_warnings
    assert ours_warnings[0][0] is FutureWarning


def test_disabled_grad_scaler_passes_through(torch):
    for t in (dyngrad, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            scaler = t.amp.GradScaler("cuda")
        w = t.ones(2, requires_grad=True)
        opt = t.optim.SGD([w], lr=0.5)
        loss = (w * w).sum()
        assert scaler.scale(loss) is loss
        loss.backward()
        scaler.step(opt)
        scaler.update()
        assert w.tolist() == [0.0, 0.0]
        assert (scaler.is_enabled(), scaler.get_scale(), scaler.state_dict()) == (False, 1.0, {})


def test_cpu_grad_scaler_matches_torch(torch):
    def run(t):
        scaler = t.amp.GradScaler("cpu", init_scale=4.0, growth_interval=2)
        w = t.tensor([1.0, -1.0], requires_grad=True)
        opt = t.optim.SGD([w], lr=0.1)
        scales = []
        for step in range(5):
            opt.zero_grad()
            loss = (w * w).sum() * (float("inf") if step == 2 else 1.0)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            scales.append(scaler.get_scale())
        return w.tolist(), scales, scaler.state_dict()

    assert run(dyngrad) == run(torch)


def test_autocast_on_cpu_records_its_state(torch):
    for t in (dyngrad, torch):
        assert not t.is_autocast_enabled("cpu")
        with t.autocast("cpu"):
            assert t.is_autocast_enabled("cpu") and t.get_autocast_dtype("cpu") == t.bfloat16
        assert not t.is_autocast_enabled("cpu")
    with pytest.warns(UserWarning, match="CUDA is not available or torch_xla is imported"):
        assert not dyngrad.autocast("cuda")._enabled


def test_cuda_module_answers_as_a_cpu_build(torch):
    for t in (dyngrad, torch):
        assert (
            t.cuda.is_available(),
            t.cuda.device_count(),
            t.cuda.memory_allocated(),
            t.cuda.max_memory_allocated(),
            t.cuda.memory_reserved(),
        ) == (False, 0, 0, 0, 0)
        t.cuda.manual_seed_all(0)
        t.cuda.empty_cache()
        with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
            t.cuda.current_device()
        assert not t.backends.cudnn.is_available() and not t.backends.mps.is_available()


def test_importing_the_gradcheck_module_keeps_the_gradcheck_function(tmp_path):
    done = _run(
        tmp_path,
        """
        import torch
        from torch.autograd import gradcheck
        from torch.autograd.gradcheck import GradcheckError, get_numerical_jacobian
        import torch.autograd.gradcheck

        x = torch.ones(2, dtype=torch.float64, requires_grad=True)
        assert callable(torch.autograd.gradcheck) and gradcheck is torch.autograd.gradcheck
        print(gradcheck(lambda t: t * 3, (x,)), issubclass(GradcheckError, RuntimeError))
        """,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True"]
