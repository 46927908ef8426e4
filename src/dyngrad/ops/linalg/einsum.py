"""einsum and tensordot, composed of views, sums, products and bmm/mm as PyTorch does.

Because they are compositions, their gradients (and higher ones) come from the parts, and
their top nodes carry PyTorch's names: a contraction ends in a view (ViewBackward0), a pure
product in MulBackward0, a single-operand reduction in SumBackward1.
"""

from __future__ import annotations

from ..table.surface import public

_LETTERS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")  # string.ascii_letters


def _parse(equation: str, operands) -> tuple[list, list]:
    equation = equation.replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    terms = lhs.split(",")
    if len(terms) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    labels = [_expand(term, op._data.ndim, i) for i, (term, op) in enumerate(zip(terms, operands))]
    if arrow:
        ellipsis = max((sum(1 for lab in ls if lab[0] == ".") for ls in labels), default=0)
        output = _expand(rhs, None, None, ellipsis)
        seen = {lab for ls in labels for lab in ls}
        for lab in output:
            if lab not in seen:
                raise RuntimeError(
                    f"einsum(): output subscript {lab} does not appear in the "
                    "equation for any input operand"
                )
    else:  # implicit: broadcast dims, then the labels used once, in alphabetical order
        counts: dict = {}
        for ls in labels:
            for lab in ls:
                counts[lab] = counts.get(lab, 0) + 1
        dots = sorted((lab for lab in counts if lab[0] == "."), key=lambda d: -len(d))
        output = dots + sorted(lab for lab, n in counts.items() if n == 1 and lab[0] != ".")
    return labels, output


def _expand(term: str, ndim, index, ellipsis_dims=None) -> list:
    """Labels of one term; '...' becomes one label per broadcast dim, counted from the end."""
    head, dots, tail = term.partition("...")
    for ch in head + tail:
        if ch not in _LETTERS:
            raise RuntimeError(
                f"einsum(): invalid subscript given at index "
                f"{term.index(ch)} in the equation string, subscripts must be "
                "in [a-zA-Z]"
            )
    if ndim is None:
        n = ellipsis_dims if dots else 0
    else:
        n = ndim - len(head) - len(tail)
        if (not dots and n != 0) or n < 0:
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({len(head) + len(tail)}) "
                f"does not match the number of dimensions ({ndim}) for operand {index}"
                + ("" if dots else " and no ellipsis was given")
            )
    return list(head) + ["." * (n - k) for k in range(n)] + list(tail)


def _diagonals(x, labels):
    # a label repeated within one operand takes that operand's diagonal
    labels = list(labels)
    while len(set(labels)) != len(labels):
        lab = next(lab for lab in labels if labels.count(lab) > 1)
        p = labels.index(lab)
        q = labels.index(lab, p + 1)
        x = x.diagonal(0, p, q)
        labels = [item for k, item in enumerate(labels) if k not in (p, q)] + [lab]
    return x, labels


def _align(x, labels, order):
    """`x` permuted to `order`, with size-1 dims for the labels it lacks."""
    present = [lab for lab in order if lab in labels]
    x = x.permute([labels.index(lab) for lab in present])
    for k, lab in enumerate(order):
        if lab not in labels:
            x = x.unsqueeze(k)
    return x


def _check_sizes(aligned, order):
    sizes: dict = {}
    for i, x in enumerate(aligned):
        for lab, s in zip(order, x.shape):
            seen = sizes.get(lab, 1)
            if s != 1 and seen != 1 and s != seen:
                raise RuntimeError(
                    f"einsum(): subscript {lab[0]} has size {s} for operand {i} "
                    f"which does not broadcast with previously seen size {seen}"
                )
            sizes[lab] = max(seen, s)


def _sum_product(left, right, sum_dims):
    """sum over `sum_dims` of left * right by one bmm; the summed dims stay with size 1."""
    ndim = left.dim()
    ls, rs = left.shape, right.shape
    batch = [d for d in range(ndim) if d not in sum_dims and ls[d] > 1 and rs[d] > 1]
    lo = [d for d in range(ndim) if d not in sum_dims and d not in batch and ls[d] > 1]
    ro = [d for d in range(ndim) if d not in sum_dims and d not in batch and d not in lo]
    # a summed dim present on one side only is summed there first
    for d in sum_dims:
        if ls[d] == 1 and rs[d] > 1:
            right = right.sum(d, keepdim=True)
        elif rs[d] == 1 and ls[d] > 1:
            left = left.sum(d, keepdim=True)
    ls, rs = left.shape, right.shape
    size = lambda shape, dims: _prod(shape[d] for d in dims)  # noqa: E731
    # the other side's own dims have size 1 here, so they can ride along in the reshape
    a = left.permute(batch + lo + ro + sum_dims).reshape(
        size(ls, batch), size(ls, lo), size(ls, sum_dims)
    )
    b = right.permute(batch + lo + sum_dims + ro).reshape(
        size(rs, batch), size(rs, sum_dims), size(rs, ro)
    )
    out_shape = [ls[d] for d in batch] + [ls[d] for d in lo] + [rs[d] for d in ro]
    out = a.bmm(b).view(out_shape)
    placed = batch + lo + ro
    out = out.permute([placed.index(d) for d in range(ndim) if d in placed])
    for d in sorted(sum_dims):
        out = out.unsqueeze(d)
    return out


def _prod(values) -> int:
    n = 1
    for v in values:
        n *= v
    return n


@public(method=False)
def einsum(equation, *operands):
    """Matches `torch.einsum`, including '...' broadcasting and implicit outputs."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    labels, output = _parse(equation, operands)
    contracted = []
    for ls in labels:
        for lab in ls:
            if lab not in output and lab not in contracted:
                contracted.append(lab)
    order = output + contracted
    aligned = []
    for x, ls in zip(operands, labels):
        x, ls = _diagonals(x, ls)
        aligned.append(_align(x, ls, order))
    _check_sizes(aligned, order)
    n_out = len(output)
    result = aligned[0]
    if len(aligned) == 1:
        return result.sum(tuple(range(n_out, len(order)))) if contracted else result
    for k, right in enumerate(aligned[1:], start=1):
        later = aligned[k + 1 :]
        sum_dims = [
            d
            for d in range(n_out, len(order))
            if all(x.shape[d] == 1 for x in later) and (result.shape[d] > 1 or right.shape[d] > 1)
        ]
        if sum_dims:
            result = _sum_product(result, right, sum_dims)
        else:
            result = result * right
    if len(order) > n_out:  # drop the contracted dims, now of size 1
        result = result.view(result.shape[:n_out])
    return result


@public(method=False)
def tensordot(a, b, dims=2, out=None):
    """Matches `torch.tensordot`: contract `dims` of `a` with those of `b` by one mm."""
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        dims_a = list(range(a.dim() - dims, a.dim()))
        dims_b = list(range(dims))
    else:
        dims_a, dims_b = (list(d) if isinstance(d, (list, tuple)) else [d] for d in dims)
    dims_a = [d % a.dim() for d in dims_a]
    dims_b = [d % b.dim() for d in dims_b]
    for da, db in zip(dims_a, dims_b):
        if a.shape[da] != b.shape[db]:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size "
                f"{a.shape[da]} in dim {da} and second has size {b.shape[db]} "
                f"in dim {db}"
            )
    free_a = [d for d in range(a.dim()) if d not in dims_a]
    free_b = [d for d in range(b.dim()) if d not in dims_b]
    k = _prod(a.shape[d] for d in dims_a)
    left = a.permute(free_a + dims_a).reshape(_prod(a.shape[d] for d in free_a), k)
    right = b.permute(dims_b + free_b).reshape(k, _prod(b.shape[d] for d in free_b))
    shape = [a.shape[d] for d in free_a] + [b.shape[d] for d in free_b]
    return left.mm(right).view(shape)
