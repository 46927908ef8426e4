"""`repr(tensor)` exactly as PyTorch prints it, and `set_printoptions`."""

from __future__ import annotations

import math

import numpy as np

from .runtime import dtypes
from .runtime.sparse_coo import SparseCOO

__all__ = ["tensor_repr", "set_printoptions"]


class _PrintOptions:
    __slots__ = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")

    def __init__(self, precision=4, threshold=1000, edgeitems=3, linewidth=80, sci_mode=None):
        self.precision, self.threshold, self.edgeitems = precision, threshold, edgeitems
        self.linewidth, self.sci_mode = linewidth, sci_mode


PRINT_OPTS = _PrintOptions()


def set_printoptions(
    precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None
) -> None:
    """Matches `torch.set_printoptions`."""
    if profile == "default":
        PRINT_OPTS.__init__()
    elif profile == "short":
        PRINT_OPTS.__init__(precision=2, threshold=1000, edgeitems=2, linewidth=80)
    elif profile == "full":
        PRINT_OPTS.__init__(precision=4, threshold=math.inf, edgeitems=3, linewidth=80)
    for name, value in (
        ("precision", precision),
        ("threshold", threshold),
        ("edgeitems", edgeitems),
        ("linewidth", linewidth),
    ):
        if value is not None:
            setattr(PRINT_OPTS, name, value)
    PRINT_OPTS.sci_mode = sci_mode


class _Formatter:
    """Chooses integer, fixed or scientific notation and one width for all elements."""

    def __init__(self, values: np.ndarray):
        self.floating = values.dtype.kind in "fc"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        p = PRINT_OPTS.precision
        flat = values.reshape(-1)
        if not self.floating:
            for v in flat.tolist():
                self.max_width = max(self.max_width, len(str(v)))
            return
        finite = flat[np.isfinite(flat) & (flat != 0)]
        if finite.size == 0:
            return
        absolute = np.abs(finite.astype(np.float64))
        lo, hi = absolute.min(), absolute.max()
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        if self.int_mode:
            if hi / lo > 1000.0 or hi > 1.0e8:
                self.sci_mode = True
                widths = [len(f"{v:.{p}e}") for v in finite.tolist()]
            else:
                widths = [len(f"{v:.0f}") + 1 for v in finite.tolist()]
        elif hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4:
            self.sci_mode = True
            widths = [len(f"{v:.{p}e}") for v in finite.tolist()]
        else:
            widths = [len(f"{v:.{p}f}") for v in finite.tolist()]
        self.max_width = max([self.max_width] + widths)
        if PRINT_OPTS.sci_mode is not None:
            self.sci_mode = PRINT_OPTS.sci_mode

    def format(self, value) -> str:
        p = PRINT_OPTS.precision
        if self.floating:
            if self.sci_mode:
                text = f"{value:{self.max_width}.{p}e}"
            elif self.int_mode:
                text = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    text += "."
            else:
                text = f"{value:.{p}f}"
        else:
            text = str(value)
        return " " * (self.max_width - len(text)) + text


class _ComplexFormatter:
    """A complex number prints as its real part (aligned) then its imaginary part (not)."""

    def __init__(self, values: np.ndarray):
        self.real = _Formatter(np.ascontiguousarray(values.real))
        self.imag = _Formatter(np.ascontiguousarray(values.imag))
        self.max_width = self.real.max_width + self.imag.max_width + 1

    def format(self, value) -> str:
        sign = "-" if value.imag < 0 else "+"
        imag = self.imag.format(abs(value.imag)).lstrip()
        return self.real.format(value.real) + sign + imag + "j"


def _vector(values: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    per_line = max(1, int(math.floor((PRINT_OPTS.linewidth - indent) / (fmt.max_width + 2))))
    edge = PRINT_OPTS.edgeitems
    if summarize and values.shape[0] > 2 * edge:
        data = (
            [fmt.format(v) for v in values[:edge].tolist()]
            + [" ..."]
            + [fmt.format(v) for v in values[-edge:].tolist()]
        )
    else:
        data = [fmt.format(v) for v in values.tolist()]
    lines = [", ".join(data[i : i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(values: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    ndim = values.ndim
    if ndim == 0:
        return fmt.format(values.item())
    if ndim == 1:
        return _vector(values, indent, summarize, fmt)
    edge = PRINT_OPTS.edgeitems
    if summarize and values.shape[0] > 2 * edge:
        rows = (
            [_nested(values[i], indent + 1, summarize, fmt) for i in range(edge)]
            + ["..."]
            + [
                _nested(values[i], indent + 1, summarize, fmt)
                for i in range(values.shape[0] - edge, values.shape[0])
            ]
        )
    else:
        rows = [_nested(values[i], indent + 1, summarize, fmt) for i in range(values.shape[0])]
    return "[" + ("," + "\n" * (ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def _summarized(values: np.ndarray) -> np.ndarray:
    edge = PRINT_OPTS.edgeitems
    if values.ndim == 0:
        return values
    if values.ndim == 1:
        if values.shape[0] > 2 * edge:
            return np.concatenate([values[:edge], values[-edge:]])
        return values
    if values.shape[0] > 2 * edge:
        parts = [
            _summarized(values[i])
            for i in list(range(edge)) + list(range(values.shape[0] - edge, values.shape[0]))
        ]
    else:
        parts = [_summarized(v) for v in values]
    return np.stack(parts)


def _tensor_str(values: np.ndarray, indent: int) -> str:
    summarize = values.size > PRINT_OPTS.threshold
    if values.dtype == np.float16 or dtypes.is_bfloat16(values.dtype):
        values = values.astype(np.float32)
    shown = _summarized(values) if summarize else values
    fmt = _ComplexFormatter(shown) if values.dtype.kind == "c" else _Formatter(shown)
    return _nested(values, indent, summarize, fmt)


def _add_suffixes(text: str, suffixes: list, indent: int, newline: bool = False) -> str:
    # `newline`: the first suffix starts a line of its own (a sparse tensor's size)
    parts = [text]
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if newline or last_line_len + len(suffix) + 2 > PRINT_OPTS.linewidth:
            newline = False
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def _history(t, suffixes: list) -> None:
    try:
        fn = t.grad_fn
        name = type(fn).__name__  # not name(): `<CopySlices>`
    except RuntimeError:  # a view whose history can't be rebuilt: PyTorch prints it so
        fn, name = True, "Invalid"
    if fn is not None:
        suffixes.append(f"grad_fn=<{name}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")


def _part(name: str, values: np.ndarray, indent: int) -> str:
    # `indices=tensor([[0, 1]])` or `values=tensor([], size=(0, 2))` inside a sparse repr
    head = f"{name}=tensor("
    if values.size == 0:
        return f"{head}[], size={tuple(values.shape)})"
    return head + _tensor_str(values, indent + len(head)) + ")"


def _sparse_repr(t, prefix: str) -> str:
    # PyTorch's: indices and values on lines of their own, then size, nnz, dtype and layout
    a = t._data
    indent = len(prefix)
    body = _part("indices", a.indices, indent) + ",\n" + " " * indent
    body += _part("values", a.values, indent)
    suffixes = [f"size={a.shape}", f"nnz={a.nnz}"]
    if t.dtype not in (dtypes.get_default_dtype(), dtypes.int64, dtypes.bool_):
        suffixes.append(f"dtype={t.dtype}")
    suffixes.append("layout=torch.sparse_coo")
    _history(t, suffixes)
    return _add_suffixes(prefix + body, suffixes, indent, newline=True)


def tensor_repr(t, prefix: str = "tensor(") -> str:
    if type(t._data) is SparseCOO:
        return _sparse_repr(t, prefix)
    indent = len(prefix)
    values = t._data if type(t._data) is np.ndarray else t._data.get()
    dtype = t.dtype
    default = dtypes.get_default_dtype()
    suffixes = []
    if t.device.type != "cpu":
        suffixes.append(f"device='{t.device}'")
    if values.size == 0:
        if values.ndim != 1:
            suffixes.append(f"size={tuple(values.shape)}")
        if dtype is not default:
            suffixes.append(f"dtype={dtype}")
        body = "[]"
    else:
        if dtype not in (default, default.to_complex(), dtypes.int64, dtypes.bool_):
            suffixes.append(f"dtype={dtype}")
        body = _tensor_str(values, indent)
    _history(t, suffixes)
    return _add_suffixes(prefix + body, suffixes, indent)
