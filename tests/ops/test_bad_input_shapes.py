"""Bad sizes, dims and indices to shape ops, indexing and `F.pad`: PyTorch's errors (issue 12).

Argument errors name the position as the user wrote the call, so the method and the
function forms are both pinned (see Note [Argument errors]).
"""

from __future__ import annotations

import math

import pytest

import dyngrad as t

from .fuzz_run import first_line

F = t.nn.functional
ENV = {"t": t, "F": F, "nan": math.nan}


def _env():
    return dict(
        ENV,
        f=t.ones(2, 3),
        z=t.tensor(1.5),
        e=t.zeros(0),
        i=t.zeros(2, 3, dtype=t.long),
        b=t.ones(2, 3, dtype=t.bool),
        seq=t.ones(1, 2, 6),
    )


def _set(x, key, value):
    x[key] = value
    return x


CASES = [
    # positions count as written: the method form does not count self
    (
        "f.flatten(0.5)",
        TypeError,
        "flatten(): argument 'start_dim' (position 1) must be int, not float",
    ),
    (
        "t.flatten(f, 0.5)",
        TypeError,
        "flatten(): argument 'start_dim' (position 2) must be int, not float",
    ),
    (
        "f.reshape(2.5)",
        TypeError,
        "reshape(): argument 'shape' (position 1) must be tuple of ints, not float",
    ),
    (
        "t.reshape(f, (2.5,))",
        TypeError,
        "reshape(): argument 'shape' (position 2) must be tuple of ints, but found element of type float at pos 0",
    ),
    ("f.reshape(2.5, 1)", TypeError, "reshape() takes 1 positional argument but 2 were given"),
    (
        "f.view(3, 2.0)",
        TypeError,
        "view(): argument 'size' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got float",
    ),
    (
        "f.view(2.5)",
        TypeError,
        "view() received an invalid combination of arguments - got (float), but expected one of:",
    ),
    (
        "f.view(2**63)",
        TypeError,
        "view(): argument 'size' failed to unpack the object at pos 1 with error \"Overflow when unpacking long long",
    ),
    ("f.view(-2)", RuntimeError, "invalid shape dimension -2 at index 0 of shape [-2]"),
    (
        "t.sum(f, 1.5)",
        TypeError,
        "sum() received an invalid combination of arguments - got (Tensor, float), but expected one of:",
    ),
    (
        "f.sum(1.5)",
        TypeError,
        "sum() received an invalid combination of arguments - got (float), but expected one of:",
    ),
    (
        "t.amax(f, (0, 1.5))",
        TypeError,
        "amax(): argument 'dim' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got float",
    ),
    (
        "t.amax(f, [1.5])",
        TypeError,
        "amax(): argument 'dim' (position 2) must be tuple of ints, but found element of type float at pos 0",
    ),
    (
        "f.unsqueeze(1.5)",
        TypeError,
        "unsqueeze(): argument 'dim' (position 1) must be int, not float",
    ),
    (
        "f.narrow(0, 1.5, 1)",
        TypeError,
        "narrow() received an invalid combination of arguments - got (int, float, int), but expected one of:",
    ),
    ("f.tril(1.5)", TypeError, "tril(): argument 'diagonal' (position 1) must be int, not float"),
    (
        "f.split(1.5)",
        TypeError,
        "split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of ints, not float",
    ),
    (
        "f.roll((1, 2), (0, 1.5))",
        TypeError,
        "roll(): argument 'dims' failed to unpack the object at pos 2 with error \"type must be tuple of ints,but got float",
    ),
    (
        "f.repeat(2**63, 1)",
        TypeError,
        "repeat(): argument 'repeats' failed to unpack the object at pos 1 with error \"Overflow when unpacking long long",
    ),
    # sizes PyTorch refuses
    (
        "f.repeat(-1, 2)",
        RuntimeError,
        "Trying to create tensor with negative dimension -2: [-2, 6]",
    ),
    (
        "f.repeat(10**6, 10**7)",
        RuntimeError,
        "DefaultCPUAllocator: can't allocate memory: you tried to allocate 240000000000000 bytes. Error code 12 (Cannot allocate memory)",
    ),
    (
        "f.split([-1, 3])",
        RuntimeError,
        "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=[-1, 3]",
    ),
    ("z.split(1)", RuntimeError, "split expects at least a 1-dimensional tensor"),
    ("z.chunk(2)", RuntimeError, "chunk expects at least a 1-dimensional tensor"),
    ("z.unbind(-1)", IndexError, "Dimension specified as 0 but tensor has no dimensions"),
    ("f.unfold(0, -1, 1)", RuntimeError, "size is -1 but must be >= 0"),
    ("f.unflatten(0, ())", RuntimeError, "unflatten: sizes must be non-empty"),
    ("f.unflatten(1, (-1, -1))", RuntimeError, "unflatten got an unexpected error:"),
    ("z.squeeze((0, 0))", RuntimeError, "dim 0 appears multiple times in the list of dims"),
    ("z.expand(-1, -1)", RuntimeError, "numel: integer multiplication overflow"),
    (
        "b.expand(())",
        RuntimeError,
        "expand(CPUBoolType{[2, 3]}, size=[]): the number of sizes provided (0) must be greater or equal to the number of dimensions in the tensor (2)",
    ),
    (
        "t.broadcast_shapes((-1, 3), (2, 3))",
        ValueError,
        "Attempting to broadcast a dimension with negative length!",
    ),
    # indexing
    (
        "z[0]",
        IndexError,
        "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number",
    ),
    ("z[-1]", IndexError, "index -1 is out of bounds for dimension 0 with size 0"),
    ("z[2.5]", IndexError, "too many indices for tensor of dimension 0"),
    ("z[0:1]", IndexError, "slice() cannot be applied to a 0-dim tensor."),
    ("f[::0]", ValueError, "slice step cannot be zero"),
    ("f[::-1]", ValueError, "step must be greater than zero"),
    ("f[(None, 5)]", IndexError, "index 5 is out of bounds for dimension 1 with size 2"),
    ("e[t.tensor([5])]", IndexError, "index is out of bounds for dimension with size 0"),
    ("e[b]", IndexError, "too many indices for tensor of dimension 1"),
    (
        "f[t.tensor([1], dtype=t.uint8)]",
        IndexError,
        "The shape of the mask [1] at index 0 does not match the shape of the indexed tensor [2, 3] at index 0",
    ),
    (
        "_set(i, t.tensor([0, 1]), t.ones(4))",
        RuntimeError,
        "shape mismatch: value tensor of shape [4] cannot be broadcast to indexing result of shape [2, 3]",
    ),
    (
        "_set(i, b, t.ones(2, 3, 1))",
        RuntimeError,
        "shape mismatch: value tensor of shape [2, 3, 1] cannot be broadcast to indexing result of shape [6]",
    ),
    (
        "_set(i, b, t.ones(6))",
        RuntimeError,
        "Index put requires the source and destination dtypes match, got Long for the destination and Float for the source.",
    ),
    (
        "_set(b, b, t.ones(6, dtype=t.bool))",
        RuntimeError,
        "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.",
    ),
    ("_set(f, 0, None)", TypeError, "can't assign a NoneType to a torch.FloatTensor"),
    # F.pad
    ("F.pad(t.ones(3), (-2, -2))", RuntimeError, "narrow(): length must be non-negative."),
    (
        "F.pad(f, (1.5, 1))",
        TypeError,
        "pad(): argument 'pad' (position 2) must be tuple of ints, but found element of type float at pos 0",
    ),
    ("F.pad(seq, (1,), mode='bogus')", NotImplementedError, "Unrecognised padding mode bogus"),
    (
        "F.pad(seq, (1, 1, 1, 1, 1, 1), mode='reflect')",
        NotImplementedError,
        "Padding size 6 is not supported for 3D input tensor.",
    ),
    (
        "F.pad(seq, (6, 6), mode='reflect')",
        RuntimeError,
        "Argument #4: Padding size should be less than the corresponding input dimension, but got: padding (6, 6) at dimension 2 of input [1, 2, 6]",
    ),
    (
        "F.pad(seq, (7, 7), mode='circular')",
        RuntimeError,
        "Padding value causes wrapping around more than once.",
    ),
    (
        "F.pad(seq, (-7, 1), mode='replicate')",
        RuntimeError,
        "input (W: 6) is too small. Calculated output W: 0",
    ),
]


@pytest.mark.filterwarnings("ignore:indexing with dtype torch.uint8")
@pytest.mark.parametrize("expr, error, line", CASES)
def test_bad_shape_argument_raises_torchs_error(expr, error, line):
    env = _env()
    env["_set"] = _set
    with pytest.raises(error) as info:
        eval(expr, env)
    assert type(info.value) is error
    assert first_line(info.value) == line.strip("'\"")


def test_shape_ops_take_what_pytorch_takes():
    z, e = t.tensor(1.5), t.zeros(0)
    assert z.transpose(0, -1).shape == () and z.movedim(-1, 0).shape == ()
    assert e.roll(1, 5).shape == (0,) and e.repeat(-1).shape == (0,)
    assert t.ones(2, 3).view(t.tensor(6)).shape == (6,)
    assert t.zeros(2, 0, 3)[t.tensor([5])].shape == (1, 0, 3)  # nothing gathered: no check
    with pytest.warns(UserWarning, match="non-tuple sequence"):
        assert t.ones(2, 3)[[[0, 1], [1, 0]]].shape == (2,)  # a list of lists is a tuple
    x = t.zeros(2, 3, dtype=t.long)
    x[x == 0] = t.tensor(2.5)  # a mask with one value casts, as masked_fill does
    assert x.dtype == t.long and x.sum().item() == 12


def test_pad_with_negative_lengths_crops_as_pytorch():
    seq = t.arange(6.0).view(1, 1, 6)
    assert F.pad(t.ones(3), (-2, -1)).shape == (0,)
    assert F.pad(seq, (2, -3), mode="circular").flatten().tolist() == [1, 2, 0, 1, 2]
    assert F.pad(seq, (2, -3), mode="reflect").flatten().tolist() == [2, 1, 0, 1, 2]
    assert F.pad(seq, (2, -3), mode="replicate").flatten().tolist() == [0, 0, 0, 1, 2]
