"""The linear-algebra functions PyTorch removed in 1.9 and still names: `torch.solve`, `eig`,
`lstsq`, `symeig`, `matrix_rank` (and the methods). Each raises PyTorch's error, so old
programs stop where they would under PyTorch, with the replacement to call."""

from __future__ import annotations

from ..table.surface import public

_REMOVED = "This function was deprecated since version 1.9 and is now removed."
_REPLACEMENTS = {
    "solve": "`torch.solve(B, A)` is `torch.linalg.solve(A, B)` (arguments reversed; for the "
    "LU factorization see `torch.linalg.lu_factor`).",
    "eig": "`torch.linalg.eig(A)` returns complex eigenvalues and eigenvectors "
    "(`torch.linalg.eigvals(A)` the eigenvalues alone).",
    "lstsq": "`torch.lstsq(B, A)` is `torch.linalg.lstsq(A, B).solution` (arguments reversed).",
    "symeig": "`torch.linalg.eigh(A, UPLO='U')` (or `eigvalsh`) replaces `torch.symeig(A, "
    "upper=True)`; the default now reads the lower triangle.",
}


def _removed(name: str):
    def removed(*args, **kwargs):
        raise RuntimeError(f"{_REMOVED} {_REPLACEMENTS[name]}")

    removed.__name__ = name
    removed.__doc__ = f"Matches `torch.{name}`: removed in PyTorch 1.9, raises its error."
    return removed


for _name in _REPLACEMENTS:
    public(_removed(_name), name=_name)


@public(method=False)
def matrix_rank(*args, **kwargs):
    """Matches `torch.matrix_rank`: removed in PyTorch 1.9, raises its error."""
    raise RuntimeError(
        f"{_REMOVED}\nPlease use the `torch.linalg.matrix_rank` function instead. The "
        "parameter 'symmetric' was renamed in `torch.linalg.matrix_rank()` to 'hermitian'."
    )
