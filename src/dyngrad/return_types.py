"""Named result tuples: `torch.return_types.max(values=..., indices=...)`."""

from __future__ import annotations

from collections import namedtuple

__all__ = [
    "max",
    "min",
    "sort",
    "topk",
    "median",
    "nanmedian",
    "mode",
    "kthvalue",
    "var_mean",
    "std_mean",
    "linalg_svd",
    "cummax",
    "cummin",
    "frexp",
    "svd",
    "slogdet",
    "histogram",
    "qr",
    "linalg_lstsq",
    "histogramdd",
    "linalg_eig",
    "linalg_eigh",
    "linalg_inv_ex",
    "linalg_solve_ex",
    "linalg_lu",
    "linalg_lu_factor",
    "linalg_lu_factor_ex",
]


def _result_type(name: str, fields: tuple[str, ...]):
    base = namedtuple(name, fields)

    def represent(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(fields, self))
        return f"torch.return_types.{name}(\n{body})"

    cls = type(name, (base,), {"__slots__": (), "__repr__": represent})
    cls.__module__ = "torch.return_types"
    return cls


max = _result_type("max", ("values", "indices"))
min = _result_type("min", ("values", "indices"))
sort = _result_type("sort", ("values", "indices"))
topk = _result_type("topk", ("values", "indices"))
median = _result_type("median", ("values", "indices"))
nanmedian = _result_type("nanmedian", ("values", "indices"))
mode = _result_type("mode", ("values", "indices"))
kthvalue = _result_type("kthvalue", ("values", "indices"))
var_mean = _result_type("var_mean", ("var", "mean"))  # torch returns plain tuples here
std_mean = _result_type("std_mean", ("std", "mean"))
linalg_svd = _result_type("linalg_svd", ("U", "S", "Vh"))
cummax = _result_type("cummax", ("values", "indices"))
cummin = _result_type("cummin", ("values", "indices"))
frexp = _result_type("frexp", ("mantissa", "exponent"))
svd = _result_type("svd", ("U", "S", "V"))
slogdet = _result_type("slogdet", ("sign", "logabsdet"))
histogram = _result_type("histogram", ("hist", "bin_edges"))
qr = _result_type("qr", ("Q", "R"))
linalg_lstsq = _result_type("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
histogramdd = _result_type("histogramdd", ("hist", "bin_edges"))
linalg_eigh = _result_type("linalg_eigh", ("eigenvalues", "eigenvectors"))
linalg_eig = _result_type("linalg_eig", ("eigenvalues", "eigenvectors"))
linalg_inv_ex = _result_type("linalg_inv_ex", ("inverse", "info"))
linalg_solve_ex = _result_type("linalg_solve_ex", ("result", "info"))
linalg_lu = _result_type("linalg_lu", ("P", "L", "U"))
linalg_lu_factor = _result_type("linalg_lu_factor", ("LU", "pivots"))
linalg_lu_factor_ex = _result_type("linalg_lu_factor_ex", ("LU", "pivots", "info"))
