"""einsum and tensordot, composed of views, sums, products and bmm/mm as PyTorch does.

Because they are compositions, their gradients (and higher ones) come from the parts. einsum
takes PyTorch's steps in PyTorch's order (each operand aligned by diagonal, unsqueeze and one
permute; pairs contracted left to right by sumproduct_pair's permute, reshape, bmm, view and
permute), so its graph is PyTorch's node for node.
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


def _aligned(x, labels, index: dict, operand: int):
    """`x` with one dim per label of the equation, in `index` order (PyTorch's steps: a repeated
    label's diagonal moved back in place, a size-1 dim unsqueezed for each missing label, then
    one permute)."""
    permutation = [-1] * len(index)
    dim = 0
    for lab in labels:
        k = index[lab]
        if permutation[k] == -1:
            permutation[k] = dim
            dim += 1
        else:
            previous = permutation[k]
            if x.shape[dim] != x.shape[previous]:
                raise RuntimeError(
                    f"einsum(): subscript {lab} is repeated for operand {operand} but the sizes "
                    f"don't match, {x.shape[dim]} != {x.shape[previous]}"
                )
            x = x.diagonal(0, previous, dim).movedim(-1, previous)
    for k, p in enumerate(permutation):
        if p == -1:
            x = x.unsqueeze(dim)
            permutation[k] = dim
            dim += 1
    return x.permute(permutation)


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
    """sum over `sum_dims` of left * right by one bmm, the summed dims kept with size 1:
    PyTorch's sumproduct_pair, step for step (so its graph is PyTorch's)."""
    if not sum_dims:
        return left * right
    lro, lo, ro = [], [], []
    for i in range(left.dim()):
        in_left, in_right = left.shape[i] != 1, right.shape[i] != 1
        if i in sum_dims:  # a summed dim present on one side only is summed there first
            if in_left and not in_right:
                left = left.sum(i, keepdim=True)
            elif in_right and not in_left:
                right = right.sum(i, keepdim=True)
        elif in_left and in_right:
            lro.append(i)
        elif in_left:
            lo.append(i)
        else:
            ro.append(i)
    if lo and ro and ro[-1] < lo[0]:  # the right's dims come first: bmm in that order
        left, right, lo, ro = right, left, ro, lo
    ls, rs = left.shape, right.shape
    size = lambda shape, dims: _prod(shape[d] for d in dims)  # noqa: E731
    out_size = [ls[d] for d in lro + lo] + [1] * len(sum_dims) + [rs[d] for d in ro]
    placed = lro + lo + list(sum_dims) + ro
    a = left.permute(placed).reshape(size(ls, lro), size(ls, lo), size(ls, sum_dims))
    b = right.permute(lro + list(sum_dims) + ro + lo).reshape(
        size(rs, lro), size(rs, sum_dims), size(rs, ro)
    )
    return a.bmm(b).view(out_size).permute([placed.index(d) for d in range(len(placed))])


def _prod(values) -> int:
    n = 1
    for v in values:
        n *= v
    return n


def _sublist_term(sublist) -> str:
    out = []
    for s in sublist:
        if s is Ellipsis:
            out.append("...")
        elif isinstance(s, int) and 0 <= s < 52:
            # PyTorch's labels: 0-25 are 'A'-'Z', 26-51 are 'a'-'z' (so order is numeric)
            out.append(chr(ord("A") + s) if s < 26 else chr(ord("a") + s - 26))
        else:
            raise ValueError(
                f"einsum(): subscript in subscript list is not within the valid range [0, 52)\n"
                f"Got {s!r}; a subscript is an int label (0-51) or Ellipsis."
            )
    return "".join(out)


def _from_sublists(args):
    operands, terms = list(args[0::2]), [_sublist_term(s) for s in args[1::2]]
    output = None
    if len(args) % 2:  # a trailing sublist names the output
        output = _sublist_term(operands.pop())
    equation = ",".join(terms) + ("" if output is None else "->" + output)
    return equation, tuple(operands)


@public(method=False)
def einsum(equation, *operands):
    """Matches `torch.einsum`, including '...' broadcasting and implicit outputs; operands are
    contracted left to right, as PyTorch does without opt_einsum."""
    if not isinstance(equation, str):  # the sublist form: einsum(a, [0, 1], b, [1, 2], [0, 2])
        equation, operands = _from_sublists((equation, *operands))
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    labels, output = _parse(equation, operands)
    # PyTorch's order of the aligned dims: the output, then the ellipsis dims it lacks, then
    # the other contracted labels in subscript order (A-Z before a-z)
    used = {lab for ls in labels for lab in ls}
    dots = sorted((lab for lab in used if lab[0] == "." and lab not in output), key=len)[::-1]
    order = output + dots + sorted(lab for lab in used if lab[0] != "." and lab not in output)
    index = {lab: k for k, lab in enumerate(order)}
    ops = [_aligned(x, ls, index, i) for i, (x, ls) in enumerate(zip(operands, labels))]
    _check_sizes(ops, order)
    n_out = len(output)
    # how many operands have each dim with a size other than 1
    counts = [sum(1 for x in ops if x.shape[d] != 1) for d in range(len(order))]
    while len(ops) > 1:
        a, b = ops[0], ops[1]
        sum_dims, a_sums, b_sums = [], [], []
        for d in range(n_out, len(order)):
            in_a, in_b = a.shape[d] != 1, b.shape[d] != 1
            if in_a and in_b:
                counts[d] -= 1
                if counts[d] == 1:  # no later operand has it: sum it in the product
                    sum_dims.append(d)
                    counts[d] = 0
            elif counts[d] == 1 and (in_a or in_b):  # only here: sum it first
                (a_sums if in_a else b_sums).append(d)
                counts[d] = 0
        if a_sums:
            a = a.sum(a_sums, keepdim=True)
        if b_sums:
            b = b.sum(b_sums, keepdim=True)
        ops = [_sum_product(a, b, sum_dims)] + ops[2:]
    result = ops[0]
    if len(order) > n_out:  # the contracted dims: size 1 after a product, else summed
        if len(operands) > 1:
            return result.view(result.shape[:n_out])
        return result.sum(tuple(range(n_out, len(order))))
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
