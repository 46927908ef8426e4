"""Namespaces real programs touch: accelerator, Tensor kind predicates, nn.parallel,
distributed, onnx and backends, answered as PyTorch on a CPU machine answers them."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import dyngrad

from .ecosystem.scripts import run as run_script

PREDICATES = ["is_xpu", "is_mps", "is_meta", "is_sparse", "is_sparse_csr", "is_quantized"]
PREDICATES += ["is_mkldnn", "is_nested", "is_ipu", "is_xla", "is_mtia", "is_maia", "is_vulkan"]


@pytest.mark.parametrize("name", PREDICATES)
def test_tensor_kind_predicates_are_false_on_cpu_as_torch(name, torch):
    for lib in (torch, dyngrad):
        for t in (lib.zeros(2), lib.nn.Parameter(lib.ones(3)), lib.arange(4)):
            assert getattr(t, name) is False, (lib.__name__, name)


def test_accelerator_answers_as_torch_without_one(torch):
    for lib in (torch, dyngrad):
        acc = lib.accelerator
        assert (acc.is_available(), acc.current_accelerator(), acc.device_count()) == (
            False,
            None,
            0,
        )
        assert acc.current_accelerator(check_available=True) is None
        with acc.device_index(None):
            pass


NEEDS_DEVICE = [
    lambda acc: acc.current_device_index(),
    lambda acc: acc.current_stream(),
    lambda acc: acc.synchronize(),
    lambda acc: acc.set_device_index(0),
    lambda acc: acc.memory_allocated(),
    lambda acc: acc.max_memory_allocated(),
    lambda acc: acc.memory_stats(),
    lambda acc: acc.reset_peak_memory_stats(),
    lambda acc: acc.empty_cache(),
    lambda acc: acc.get_memory_info(),
    lambda acc: acc.device_index(0).__enter__(),
]


@pytest.mark.parametrize("call", NEEDS_DEVICE)
def test_accelerator_calls_that_need_a_device_raise_as_torch(call, torch):
    messages = []
    for lib in (torch, dyngrad):
        with pytest.raises(RuntimeError) as info:
            call(lib.accelerator)
        messages.append(str(info.value))
    assert messages[1] == messages[0] == "Cannot access accelerator device when none is available."


def test_accelerator_set_device_index_none_and_deprecated_names_as_torch(torch):
    for lib in (torch, dyngrad):
        with pytest.raises(ValueError, match="but got:None"):
            lib.accelerator.set_device_index(None)
        with pytest.warns(FutureWarning, match="Use `current_device_index` instead."):
            with pytest.raises(RuntimeError):
                lib.accelerator.current_device_idx()


def test_data_parallel_on_cpu_calls_the_module_as_torch(torch):
    theirs = torch.nn.DataParallel(torch.nn.Linear(3, 2), device_ids=[0, 1])
    ours = dyngrad.nn.DataParallel(dyngrad.nn.Linear(3, 2), device_ids=[0, 1])
    assert dyngrad.nn.parallel.DataParallel is dyngrad.nn.DataParallel
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["module.weight", "module.bias"]
    assert ours.device_ids == theirs.device_ids == []
    assert repr(ours) == repr(theirs)
    state = {k: dyngrad.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()}
    ours.load_state_dict(state)
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    out = ours(dyngrad.from_numpy(x))
    expected = theirs(torch.from_numpy(x)).detach().numpy()
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-5, atol=1e-6)
    out.sum().backward()
    assert ours.module.weight.grad is not None


def test_data_parallel_function_raises_as_torch_without_a_device(torch):
    for lib in (torch, dyngrad):
        with pytest.raises(RuntimeError, match="device type could not be determined"):
            lib.nn.parallel.data_parallel(lib.nn.Linear(2, 2), lib.zeros(1, 2))


def test_distributed_data_parallel_needs_a_process_group_as_torch(torch):
    ddp = dyngrad.nn.parallel.DistributedDataParallel
    assert issubclass(ddp, dyngrad.nn.Module)
    assert not isinstance(dyngrad.nn.Linear(2, 2), ddp)
    for lib in (dyngrad, torch):
        with pytest.raises(ValueError, match="Default process group has not been initialized"):
            lib.nn.parallel.DistributedDataParallel(lib.nn.Linear(2, 2))


def test_distributed_is_available_with_mpi4py_and_uninitialized_calls_raise(torch):
    dist = dyngrad.distributed
    has_mpi4py = importlib.util.find_spec("mpi4py") is not None
    assert (dist.is_available(), dist.is_initialized(), dist.is_nccl_available()) == (
        has_mpi4py,
        False,
        False,
    )
    assert dist.ReduceOp.SUM is not dist.ReduceOp.AVG
    for lib in (dyngrad, torch):
        for call in (lib.distributed.get_rank, lib.distributed.barrier):
            with pytest.raises(ValueError, match="Default process group has not been initialized"):
                call()


def test_onnx_export_raises_and_no_export_is_running():
    assert dyngrad.onnx.is_in_onnx_export() is False
    with pytest.raises(RuntimeError, match="torch.onnx.export is not supported by dyngrad"):
        dyngrad.onnx.export(dyngrad.nn.Linear(2, 2), (dyngrad.zeros(1, 2),), "model.onnx")


FLAGS = [
    "cudnn.enabled",
    "cudnn.benchmark",
    "cudnn.deterministic",
    "cudnn.allow_tf32",
    "cuda.matmul.allow_tf32",
    "cuda.matmul.fp32_precision",
    "mkldnn.enabled",
]


@pytest.mark.parametrize("flag", FLAGS)
def test_backend_flags_default_as_torch(flag, torch):
    def read(lib):
        value = lib.backends
        for part in flag.split("."):
            value = getattr(value, part)
        return value

    assert read(dyngrad) == read(torch)


@pytest.mark.parametrize(
    "query", ["cudnn.is_available", "mps.is_available", "mps.is_built", "cuda.is_built"]
)
def test_backend_queries_answer_as_torch_on_cpu(query, torch):
    module, name = query.split(".")
    assert getattr(getattr(dyngrad.backends, module), name)() is False
    assert getattr(getattr(torch.backends, module), name)() is False


def test_sdp_and_fastpath_switches_round_trip():
    cuda, mha = dyngrad.backends.cuda, dyngrad.backends.mha
    assert cuda.flash_sdp_enabled() and cuda.math_sdp_enabled() and mha.get_fastpath_enabled()
    cuda.enable_flash_sdp(False)
    mha.set_fastpath_enabled(False)
    try:
        assert not cuda.flash_sdp_enabled() and not mha.get_fastpath_enabled()
    finally:
        cuda.enable_flash_sdp(True)
        mha.set_fastpath_enabled(True)


SCRIPT = """
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    from torch.nn.parallel import DistributedDataParallel as DDP
    from torch.nn.utils.rnn import pad_sequence

    model = nn.Linear(2, 2)
    if dist.is_available() and dist.is_initialized():
        model = DDP(model)
    model = nn.DataParallel(model)
    torch.backends.cudnn.benchmark = True
    print("accelerator", torch.accelerator.is_available(), torch.accelerator.current_accelerator())
    print("mps", torch.backends.mps.is_available(), torch.zeros(1).is_mps)
    print("keys", sorted(model.state_dict()))
    print("padded", tuple(pad_sequence([torch.ones(2), torch.ones(3)]).shape))
    print("onnx", torch.onnx.is_in_onnx_export())
"""


def test_a_script_using_these_namespaces_runs_under_the_torch_alias(tmp_path):
    done = run_script(tmp_path, SCRIPT, under="dyngrad")
    assert done.stdout.splitlines() == [
        "accelerator False None",
        "mps False False",
        "keys ['module.bias', 'module.weight']",
        "padded (3, 2)",
        "onnx False",
    ]
