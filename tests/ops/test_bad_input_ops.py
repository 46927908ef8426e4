"""Bad input to reductions, elementwise math and nn.functional: PyTorch's errors (issue 12)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import dyngrad as t

from .fuzz_run import first_line

F = t.nn.functional


def _env():
    return {
        "t": t,
        "F": F,
        "nan": math.nan,
        "f": t.ones(2, 3),
        "i": t.ones(2, 3, dtype=t.long),
        "b": t.ones(2, 3, dtype=t.bool),
        "e": t.zeros(0),
        "z": t.tensor(1.5),
        "img": t.ones(1, 2, 5, 5),
        "seq": t.ones(1, 2, 6),
        "logits": t.ones(4, 3),
        "target": t.tensor([0, 2, 1, 2]),
    }


CASES = [
    # reductions
    ("t.argmax(b)", RuntimeError, "argmax(): does not support bool input"),
    ("t.softmax(f)", TypeError, 'softmax() missing 1 required positional arguments: "dim"'),
    ("t.softmax(f, dim=None)", TypeError, "softmax(): argument 'dim' must be int, not NoneType"),
    ("t.softmax(i, 0)", NotImplementedError, "\"softmax_kernel_impl\" not implemented for 'Long'"),
    (
        "t.max(f, dim=None)",
        TypeError,
        "max() received an invalid combination of arguments - got (Tensor, dim=NoneType), but expected one of:",
    ),
    ("t.std_mean(i)", RuntimeError, "std_mean only support floating point and complex dtypes"),
    (
        "t.std(i, 1.5)",
        TypeError,
        "std() received an invalid combination of arguments - got (Tensor, float), but expected one of:",
    ),
    ("t.topk(f, 1.5)", TypeError, "topk(): argument 'k' (position 2) must be int, not float"),
    ("t.topk(b, 1)", RuntimeError, "topk does not support bool dtypes on CPU"),
    ("t.kthvalue(e, 1)", IndexError, "kthvalue(): Expected reduction dim 0 to have non-zero size."),
    ("t.amax(e, -1)", IndexError, "amax(): Expected reduction dim -1 to have non-zero size."),
    ("t.cummax(z, 2)", IndexError, "cummax(): Expected reduction dim -1 or 0 for scalar but got 2"),
    (
        "t.cumsum(f, 0, dtype=t.bool)",
        NotImplementedError,
        "\"cumsum_out_cpu\" not implemented for 'Bool'",
    ),
    ("t.unique(f, 0)", TypeError, "_unique2(): argument 'sorted' must be bool, not int"),
    (
        "t.norm(f, (0, 1))",
        TypeError,
        "linalg_vector_norm(): argument 'ord' (position 2) must be Number, not tuple",
    ),
    (
        "t.aminmax(e)",
        RuntimeError,
        "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.",
    ),
    # elementwise
    ("t.relu(b)", RuntimeError, "Boolean inputs not supported for relu"),
    (
        "t.add(i, i, alpha=1.5)",
        RuntimeError,
        "For integral input tensors, argument alpha must not be a floating point number.",
    ),
    ("t.add(f, f, alpha=True)", RuntimeError, "Boolean alpha only supported for Boolean results."),
    ("t.fmax(f, 0)", TypeError, "fmax(): argument 'other' (position 2) must be Tensor, not int"),
    (
        "t.lerp(f, f)",
        TypeError,
        "lerp() received an invalid combination of arguments - got (Tensor, Tensor), but expected one of:",
    ),
    ("t.bitwise_not(f)", NotImplementedError, "\"bitwise_not_cpu\" not implemented for 'Float'"),
    (
        "t.bitwise_and(f, t.ones(4))",
        RuntimeError,
        "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1",
    ),
    (
        "i.bitwise_and_(1.5)",
        RuntimeError,
        "result type Float can't be cast to the desired output type Long",
    ),
    ("f << 1", NotImplementedError, "\"lshift_cpu\" not implemented for 'Float'"),
    # nn.functional
    (
        "F.linear(z, z)",
        RuntimeError,
        "both arguments to linear need to be at least 1D, but they are 0D and 0D",
    ),
    (
        "F.dropout(img, nan)",
        RuntimeError,
        "dropout probability has to be between 0 and 1, but got nan",
    ),
    (
        "F.dropout1d(img, 1.5)",
        ValueError,
        "dropout probability has to be between 0 and 1, but got 1.5",
    ),
    ("F.embedding(t.tensor([0]), t.ones(3))", RuntimeError, "'weight' must be 2-D"),
    (
        "F.max_pool2d(img, -1)",
        RuntimeError,
        "kernel size should be greater than zero, but got kH: -1 kW: -1",
    ),
    (
        "F.max_pool2d(img, 1.5)",
        TypeError,
        "max_pool2d(): argument 'kernel_size' (position 2) must be tuple of ints, not float",
    ),
    ("F.avg_pool2d(img, 2, padding=-1)", RuntimeError, "pad must be non-negative, but got pad: -1"),
    (
        "F.max_pool1d(seq, 2, stride=0)",
        RuntimeError,
        "max_pool1d() stride must be greater than zero, but got 0",
    ),
    (
        "F.max_pool1d(seq.long(), 2)",
        NotImplementedError,
        "\"max_pool1d_impl\" not implemented for 'Long'",
    ),
    (
        "F.adaptive_avg_pool2d(img, -1)",
        RuntimeError,
        "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {-1, -1}",
    ),
    (
        "F.layer_norm(f, 3)",
        TypeError,
        "layer_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not int",
    ),
    (
        "F.layer_norm(f, ())",
        RuntimeError,
        "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got normalized_shape = []",
    ),
    (
        "F.layer_norm(i, (3,))",
        NotImplementedError,
        "\"LayerNormKernelImpl\" not implemented for 'Long'",
    ),
    (
        "F.batch_norm(img, t.zeros(2), None, training=True)",
        ValueError,
        "running_mean and running_var must either both be None or neither be None",
    ),
    (
        "F.batch_norm(img.long(), t.zeros(2), t.ones(2))",
        NotImplementedError,
        "\"batch_norm\" not implemented for 'Long'",
    ),
    ("F.group_norm(img, -1)", RuntimeError, "Expected num groups to be greater than 0, got -1"),
    (
        "F.interpolate(img, scale_factor=0)",
        RuntimeError,
        "Input and output sizes should be greater than 0, but got input (H: 5, W: 5) output (H: 0, W: 0)",
    ),
    (
        "F.interpolate(img.long(), size=7)",
        NotImplementedError,
        "\"upsample_nearest2d_channels_last\" not implemented for 'Long'",
    ),
    (
        "F.cross_entropy(logits, target.view(2, 2))",
        ValueError,
        "Expected input batch_size (4) to match target batch_size (2).",
    ),
    (
        "F.nll_loss(logits.long(), target)",
        NotImplementedError,
        "\"nll_loss_out_frame\" not implemented for 'Long'",
    ),
    ("F.mse_loss(i, i)", NotImplementedError, "\"mse_cpu\" not implemented for 'Long'"),
    ("F.kl_div(f, i)", RuntimeError, "kl_div: Integral inputs not supported."),
    (
        "F.conv1d(seq, t.ones(3, 2, 3), dilation=0)",
        RuntimeError,
        "dilation should be greater than zero, but got [1, 0]",
    ),
    (
        "F.conv2d(img.double(), t.ones(3, 2, 3, 3))",
        RuntimeError,
        "expected scalar type Double but found Float",
    ),
    (
        "F.unfold(img, 0)",
        RuntimeError,
        "kernel size should be greater than zero, but got kernel_height: 0 kernel_width: 0",
    ),
    (
        "F.softshrink(f, -1)",
        RuntimeError,
        "lambda must be in range [0, 3.40282e+38] for input dtype Float, but found -1",
    ),
    (
        "F.normalize(i)",
        RuntimeError,
        "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long",
    ),
    # index and scatter helpers: the dim first, then the index's dtype and shape
    (
        "t.gather(f, 2, t.tensor([0.0, 1.0]))",
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
    ),
    (
        "t.gather(f, 1.5, t.tensor([[0]]))",
        TypeError,
        "gather(): argument 'dim' (position 2) must be int, not float",
    ),
    (
        "f.scatter(1.5, t.tensor([[0]]), 1.0)",
        TypeError,
        "scatter() received an invalid combination of arguments - got (float, Tensor, float), but expected one of:",
    ),
    ("t.index_select(f, 0, b)", IndexError, "index_select(): Index is supposed to be a vector"),
    (
        "t.zeros(2, 0, 3).index_select(1, t.tensor([0]))",
        RuntimeError,
        "index_select(): self indexing axis dim should be positive",
    ),
    (
        "f.index_fill(0, t.ones(2, 2, dtype=t.long), -1.0)",
        RuntimeError,
        "Index has to be a vector/scalar",
    ),
    (
        "f.index_copy(0, t.tensor([0, 1], dtype=t.int32), f)",
        RuntimeError,
        "index_copy_(): Expected a long tensor for index, but got Int",
    ),
    (
        "t.take_along_dim(f, b, 0)",
        RuntimeError,
        "torch.take_along_dim(): dtype of indices should be Long but got Bool",
    ),
    (
        "t.take_along_dim(f, t.tensor([0]), 0)",
        RuntimeError,
        "torch.take_along_dim(): input and indices should have the same number of dimensions, but got 2 dimensions for input, and 1 dimensions for indices",
    ),
    (
        "f.masked_fill(f, t.tensor([1.0, 2.0]))",
        RuntimeError,
        "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s).",
    ),
    (
        "F.one_hot(t.tensor([1]), num_classes=2.5)",
        TypeError,
        "one_hot(): argument 'num_classes' must be int, not float",
    ),
    (
        "F.one_hot(t.zeros(0, dtype=t.long))",
        RuntimeError,
        "Can not infer total number of classes from empty tensor.",
    ),
    ("t.bincount(f)", NotImplementedError, "\"bincount_cpu\" not implemented for 'Float'"),
    ("t.bincount(t.tensor([1]), minlength=-1)", RuntimeError, "minlength should be >= 0"),
    (
        "t.searchsorted(z, z)",
        RuntimeError,
        "torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension is 1, but we got boundaries tensor dim(0) and input value's dim(0) numel(1)",
    ),
]


@pytest.mark.filterwarnings("ignore:reduction")
@pytest.mark.parametrize("expr, error, line", CASES)
def test_bad_argument_raises_torchs_error(expr, error, line):
    with pytest.raises(error) as info:
        eval(expr, _env())
    assert type(info.value) is error
    assert first_line(info.value) == line.strip("'\"")


def test_values_pytorch_gives_for_inputs_dyngrad_refused():
    # F.linear with a 1-D weight, softmax of an empty integer tensor (issue 12)
    assert F.linear(t.ones(2, 3), t.tensor([1.0, 2.0, 3.0])).tolist() == [6.0, 6.0]
    assert F.linear(t.ones(3), t.ones(3), t.tensor(1.0)).item() == 4.0
    out = t.softmax(t.zeros(0, dtype=t.long), 0)
    assert out.dtype == t.long and out.shape == (0,)
    # an empty dim list reduces nothing; bitwise ops and shifts; aminmax
    assert t.all(t.tensor([[1, 0]]), ()).tolist() == [[True, False]]
    assert (t.tensor([1, -2]) << 2).tolist() == [4, -8] and (t.tensor([-8]) >> 64).item() == -1
    assert t.bitwise_xor(t.tensor([True, False]), True).tolist() == [False, True]
    low, high = t.aminmax(t.tensor([[1.0, 5.0], [0.0, 3.0]]), dim=1)
    assert low.tolist() == [1.0, 0.0] and high.tolist() == [5.0, 3.0]
    # a NaN threshold keeps the input, as PyTorch's kernel does
    assert F.threshold(t.tensor([0.5, -1.0]), math.nan, 9.0).tolist() == [0.5, -1.0]
    assert np.isnan(t.var(t.zeros(0), correction=-1).item())
    # an empty index gathers and writes nothing, whatever its shape
    assert t.gather(t.ones(2, 3), 0, t.tensor([], dtype=t.long)).shape == (0,)
    assert t.ones(2, 3).scatter(1, t.tensor([], dtype=t.long), 5.0).sum().item() == 6.0
