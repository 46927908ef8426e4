"""Memory layouts (`torch.strided`, `torch.sparse_coo`, ...): PyTorch's `torch.layout` values."""

from __future__ import annotations

__all__ = ["layout", "strided", "sparse_coo", "LAYOUTS"]


class layout:  # noqa: N801 - PyTorch's class name
    """Matches `torch.layout`: one object per layout, printed as `torch.<name>`."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self):
        return (_by_name, (self.name,))


LAYOUTS = {
    name: layout(name)
    for name in ("strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc")
}
LAYOUTS["_mkldnn"] = layout("_mkldnn")
LAYOUTS["jagged"] = layout("jagged")
strided = LAYOUTS["strided"]
sparse_coo = LAYOUTS["sparse_coo"]


def _by_name(name: str) -> layout:
    return LAYOUTS[name]
