"""The order PyTorch's CPU sort, topk and kthvalue give equal values, replayed in NumPy.

# Note [Tie order of sort and topk]

PyTorch's CPU sort (`stable=False`), topk and kthvalue are not stable: which of several equal
values comes first is whatever the algorithm leaves there. ATen fills (value, index) pairs in
index order and calls std::sort (sort), std::partial_sort when k * 64 <= n, else
std::nth_element and then std::sort of the first k - 1 when `sorted` (topk), and Sedgewick's
quickselect (kthvalue). Those choices depend only on how the values compare, so dyngrad replays
the same algorithms (gcc's libstdc++, which PyTorch's wheels are built with) on integer keys:
the rank of each value in the stable order, equal values (and all NaN) sharing one.

Rows where no two candidates compare equal have one answer, which a stable NumPy argsort gives;
only rows with ties are replayed. Whole rows are partitioned at once across rows and ranges
(one NumPy pass per level of the recursion); partial_sort's heap runs in Python.
"""

from __future__ import annotations

import numpy as np

THRESHOLD = 16  # libstdc++'s _S_threshold: shorter ranges are left to the insertion sort


def _floor_log2(n: np.ndarray) -> np.ndarray:  # std::__lg
    return np.floor(np.log2(np.maximum(n, 1))).astype(np.int64)


def _spans(first, last):
    """The positions of the (non-empty) ranges [first, last) end to end, which range holds
    each, and where each range starts among them."""
    sizes = last - first
    starts = np.cumsum(sizes) - sizes
    step = np.ones(int(sizes.sum()), np.int64)  # positions step by 1, and jump between ranges
    step[starts] = first - np.concatenate([[0], last[:-1] - 1])
    owner = np.zeros(len(step), np.int64)
    owner[starts[1:]] = 1
    return np.cumsum(step), np.cumsum(owner), starts


def _swap(key, index, a, b):
    key[a], key[b] = key[b], key[a]
    index[a], index[b] = index[b], index[a]


def _stops(pos, owner, mask, n):
    """Where a scan stops (mask), range by range in ascending order: the positions, the
    range of each, and each range's count and start among them."""
    count = np.bincount(owner[mask], minlength=n)
    return pos[mask], owner[mask], count, np.cumsum(count) - count


def _take(at, start, count, rank, default, from_end=False):
    """Each range's stop of `rank` (from 0, counted from the end if `from_end`), if any."""
    if not len(at):
        return np.full(np.shape(rank), default)
    there = (rank >= 0) & (rank < count)
    offset = count - 1 - rank if from_end else rank
    return np.where(there, at[np.clip(start + offset, 0, len(at) - 1)], default)


def _swap_crossing(key, index, left, right, n):
    """Swap the m-th left stop with the m-th right stop (from the end) of each range while
    the left one comes first; returns how many swapped in each range."""
    at, owner, _, start = left
    rank = np.arange(len(at)) - start[owner]
    partner = _take(right[0], right[3][owner], right[2][owner], rank, -1, from_end=True)
    swapped = at < partner
    _swap(key, index, at[swapped], partner[swapped])
    return np.bincount(owner, weights=swapped, minlength=n).astype(np.int64)


def partition(key, index, first, last):
    """libstdc++'s __unguarded_partition_pivot on every range [first, last) at once (each
    longer than 3); returns the cuts.

    The pivot is the median of first + 1, the middle and last - 1, moved to first. The left
    scan stops at keys >= pivot, the right scan (from the end) at keys <= pivot, and the m-th
    stops swap while they have not crossed. The scans then read what the swaps wrote: the
    left one stops at its next stop or the right one's last swap, whichever comes first."""
    mid = first + (last - first) // 2
    a, b, c = key[first + 1], key[mid], key[last - 1]
    median = np.where(
        a < b,
        np.where(b < c, mid, np.where(a < c, last - 1, first + 1)),
        np.where(a < c, first + 1, np.where(b < c, last - 1, mid)),
    )
    _swap(key, index, first, median)
    pos, owner, starts = _spans(first, last)
    here, pivot, n = key[pos], key[first][owner], len(first)
    at_least = here >= pivot
    at_least[starts] = False  # the left scan starts after the pivot
    left = _stops(pos, owner, at_least, n)
    right = _stops(pos, owner, here <= pivot, n)  # the pivot stops the right scan at first
    swaps = _swap_crossing(key, index, left, right, n)
    return np.minimum(
        _take(left[0], left[3], left[2], swaps, last),
        _take(right[0], right[3], right[2], swaps - 1, last, from_end=True),
    )


def _quick_partition(key, index, lo, hi):
    """ATen's partition (Sedgewick's) of each range [lo, hi] (inclusive, more than 2 long)
    around key[lo], given its median of three; returns where the scans stopped (i, j).

    The left scan stops at keys >= pivot from lo + 2, the right scan at keys <= pivot from
    hi - 1 down, and they swap until they cross; scans meeting on one key go one step on."""
    pos, owner, starts = _spans(lo + 1, hi + 1)
    here, pivot, n = key[pos], key[lo][owner], len(lo)
    at_least, at_most = here >= pivot, here <= pivot
    at_least[starts] = False
    at_most[np.append(starts[1:], len(pos)) - 1] = False
    left, right = _stops(pos, owner, at_least, n), _stops(pos, owner, at_most, n)
    swaps = _swap_crossing(key, index, left, right, n)
    meet = _take(left[0], left[3], left[2], swaps, -1)
    meet = (meet >= 0) & (meet == _take(right[0], right[3], right[2], swaps, -2, from_end=True))
    last = swaps + meet
    big = np.iinfo(np.int64).max
    i = np.minimum(
        _take(left[0], left[3], left[2], last, big),
        _take(right[0], right[3], right[2], swaps - 1, big, from_end=True),
    )
    j = np.maximum(
        _take(right[0], right[3], right[2], last, -1, from_end=True),
        _take(left[0], left[3], left[2], swaps - 1, -1),
    )
    return i, j


def quick_select_ranges(key, index, lo, k, hi):
    """ATen's quick_select_template (kthvalue) on each range [lo, hi] (inclusive) around its
    position k, in place."""
    lo, hi = lo.copy(), hi.copy()
    while True:
        two = np.flatnonzero(hi == lo + 1)
        out = two[key[lo[two]] > key[hi[two]]]
        _swap(key, index, lo[out], hi[out])
        hi[two] = lo[two]
        active = np.flatnonzero(hi > lo + 1)
        if not active.size:
            return
        L, R = lo[active], hi[active]
        _swap(key, index, (L + R) >> 1, L + 1)
        for a, b in ((L + 1, R), (L, R), (L + 1, L)):
            out = key[a] > key[b]
            _swap(key, index, a[out], b[out])
        i, j = _quick_partition(key, index, L, R)
        _swap(key, index, L, j)
        lo[active] = np.where(j <= k[active], i, L)
        hi[active] = np.where(j >= k[active], j - 1, R)


def sort_ranges(key, index, first, last):
    """std::sort on each range [first, last) of the flat arrays, in place."""
    _introsort_loop(key, index, first, last, 2 * _floor_log2(last - first))
    _insertion_sort(key, index, first, last)


def _introsort_loop(key, index, first, last, depth):
    while len(first):
        keep = last - first > THRESHOLD
        first, last, depth = first[keep], last[keep], depth[keep]
        spent = depth == 0
        for f, l in zip(first[spent].tolist(), last[spent].tolist()):
            _heap_sort(key, index, f, l)  # introsort's way out of a bad run of pivots
        first, last, depth = first[~spent], last[~spent], depth[~spent] - 1
        if not len(first):
            break
        cut = partition(key, index, first, last)
        first, last = np.concatenate([first, cut]), np.concatenate([cut, last])
        depth = np.concatenate([depth, depth])


def select_ranges(key, index, first, nth, last):
    """std::nth_element on each range [first, last) around its position nth, in place."""
    first, last = first.copy(), last.copy()
    depth = 2 * _floor_log2(last - first)
    while True:
        active = np.flatnonzero(last - first > 3)
        if not active.size:
            break
        for r in active[depth[active] == 0].tolist():
            _heap_select(key, index, int(first[r]), int(nth[r]) + 1, int(last[r]))
            _swap(key, index, first[r], nth[r])
            first[r] = last[r]  # done: nothing is left for the insertion sort
        active = active[depth[active] > 0]
        depth[active] -= 1
        cut = partition(key, index, first[active], last[active])
        upper = cut <= nth[active]
        first[active] = np.where(upper, cut, first[active])
        last[active] = np.where(upper, last[active], cut)
    _insertion_sort(key, index, first, last)


def _insertion_sort(key, index, first, last):
    # an insertion sort keeps equal keys in the order it finds them: a stable sort
    sized = last > first
    pos, owner = _spans(first[sized], last[sized])[:2]
    order = pos[np.lexsort((key[pos], owner))]
    key[pos], index[pos] = key[order], index[order]


# ---- heaps (libstdc++'s stl_heap.h), on Python lists --------------------------------------


def _adjust_heap(keys, values, hole, length, key, value):
    # sift the hole down to a leaf along the larger children, then push the value up
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if keys[child] < keys[child - 1]:
            child -= 1
        keys[hole], values[hole] = keys[child], values[child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        keys[hole], values[hole] = keys[child - 1], values[child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and keys[parent] < key:
        keys[hole], values[hole] = keys[parent], values[parent]
        hole = parent
        parent = (hole - 1) // 2
    keys[hole], values[hole] = key, value


def _make_heap(keys, values):
    length = len(keys)
    for parent in range((length - 2) // 2, -1, -1):
        _adjust_heap(keys, values, parent, length, keys[parent], values[parent])


def _sort_heap(keys, values):
    for last in range(len(keys) - 1, 0, -1):
        key, value = keys[last], values[last]
        keys[last], values[last] = keys[0], values[0]
        _adjust_heap(keys, values, 0, last, key, value)


def _heap_sort(key, index, first, last):
    keys, values = key[first:last].tolist(), index[first:last].tolist()
    _make_heap(keys, values)
    _sort_heap(keys, values)
    key[first:last], index[first:last] = keys, values


def _heap_select(key, index, first, middle, last):
    keys, values = key[first:last].tolist(), index[first:last].tolist()
    size = middle - first
    heap_keys, heap_values = keys[:size], values[:size]
    _make_heap(heap_keys, heap_values)
    for i in range(size, len(keys)):
        if keys[i] < heap_keys[0]:  # pop the top into i, and i into the heap
            taken = keys[i], values[i]
            keys[i], values[i] = heap_keys[0], heap_values[0]
            _adjust_heap(heap_keys, heap_values, 0, size, *taken)
    keys[:size], values[:size] = heap_keys, heap_values
    key[first:last], index[first:last] = keys, values


def partial_sort_row(keys: np.ndarray, k: int) -> list:
    """The first k indices std::partial_sort leaves in a row of keys."""
    heap_keys, heap_values = keys[:k].tolist(), list(range(k))
    _make_heap(heap_keys, heap_values)
    # a key the heap's top does not exceed is never taken: the top only falls, so whole
    # blocks are screened in NumPy against the top as it stands
    for start in range(k, len(keys), 128):
        block = keys[start : start + 128]
        taken = np.flatnonzero(block < heap_keys[0])
        for i, key in zip((taken + start).tolist(), block[taken].tolist()):
            if key < heap_keys[0]:
                _adjust_heap(heap_keys, heap_values, 0, k, key, i)
    _sort_heap(heap_keys, heap_values)
    return heap_values


# ---- the orders of sort, topk and kthvalue along a dim ------------------------------------


def _rows(a, dim):
    moved = np.moveaxis(a, dim, -1)
    lead = moved.shape[:-1]
    return moved.reshape(int(np.prod(lead)), moved.shape[-1]), lead


def _unrows(rows, lead, dim):
    return np.moveaxis(rows.reshape(lead + rows.shape[-1:]), -1, dim)


def _equal_neighbours(rows, order):
    """Whether each value in stable sorted order compares equal to the next (NaN to NaN)."""
    ordered = np.take_along_axis(rows, order, 1)
    a, b = ordered[:, :-1], ordered[:, 1:]
    same = a == b
    if rows.dtype.kind not in "biu":
        same |= np.isnan(a) & np.isnan(b)
    return same


def _keys(rows, order):
    """Integer keys comparing as ATen's comparator does: the rank of each value's group of
    equal values (all NaN one group) in the stable `order`, whichever way that sorts."""
    ranks = np.zeros(order.shape, np.int64)
    np.cumsum(~_equal_neighbours(rows, order), axis=1, out=ranks[:, 1:])
    keys = np.empty_like(ranks)
    np.put_along_axis(keys, order, ranks, 1)
    return keys


def _flat(keys):
    rows, n = keys.shape
    first = np.arange(rows, dtype=np.int64) * n
    return keys.reshape(-1).copy(), np.tile(np.arange(n, dtype=np.int64), rows), first


def row_keys(rows: np.ndarray):
    """(flat keys, flat indices, each row's first position) of a (rows, n) array, ready for
    `sort_ranges`/`select_ranges`: the keys compare as ATen's comparator."""
    order = np.argsort(rows, axis=1, kind="stable")
    return _flat(_keys(rows, order))


def sort_order(x: np.ndarray, order: np.ndarray, dim: int, descending: bool) -> np.ndarray:
    """PyTorch's CPU sort(stable=False) indices, from the stable `order` along `dim`."""
    n = x.shape[dim]
    # ATen returns 0..n-1 for a dim of stride 0, and radix-sorts (stably) a long 1-d integer
    # tensor in ascending order
    radix = x.ndim == 1 and x.dtype.kind in "iu" and not descending and n >= 32768
    if n <= THRESHOLD or x.strides[dim] == 0 or radix:
        return order
    rows, lead = _rows(x, dim)
    index = _rows(order, dim)[0]
    tied = np.flatnonzero(_equal_neighbours(rows, index).any(axis=1))
    if not tied.size:
        return order
    key, replayed, first = _flat(_keys(rows[tied], index[tied]))
    sort_ranges(key, replayed, first, first + n)
    index = index.copy()
    index[tied] = replayed.reshape(-1, n)
    return _unrows(index, lead, dim)


def topk_order(x, order, k: int, dim: int, largest: bool, sorted: bool) -> np.ndarray:
    """PyTorch's CPU topk indices, from the stable `order` (descending if `largest`)."""
    n = x.shape[dim]
    rows, lead = _rows(x, dim)
    order = _rows(order, dim)[0]
    index = order[:, :k].copy()
    if k == 0 or not rows.size:
        return _unrows(index, lead, dim)
    partial = k * 64 <= n
    if partial or sorted or k == 1:
        replay = np.flatnonzero(_equal_neighbours(rows, order[:, : k + 1]).any(axis=1))
    else:  # nth_element leaves the first k in an order of its own
        replay = np.arange(len(rows))
    if replay.size:
        keys = _keys(rows[replay], order[replay])
        if partial:
            index[replay] = [partial_sort_row(row, k) for row in keys]
        else:
            key, replayed, first = _flat(keys)
            select_ranges(key, replayed, first, first + k - 1, first + n)
            if sorted:
                sort_ranges(key, replayed, first, first + k - 1)
            index[replay] = replayed.reshape(-1, n)[:, :k]
    return _unrows(index, lead, dim)


def kthvalue_order(x: np.ndarray, order: np.ndarray, k: int, dim: int) -> np.ndarray:
    """PyTorch's CPU kthvalue index (a dim of size 1), from the stable ascending `order`."""
    rows, lead = _rows(x, dim)
    order = _rows(order, dim)[0]
    index = order[:, k - 1 : k].copy()
    window = order[:, max(k - 2, 0) : k + 1]
    replay = np.flatnonzero(_equal_neighbours(rows, window).any(axis=1))
    if replay.size:
        key, replayed, first = _flat(_keys(rows[replay], order[replay]))
        n = rows.shape[1]
        quick_select_ranges(key, replayed, first, first + k - 1, first + n - 1)
        index[replay, 0] = replayed.reshape(-1, n)[:, k - 1]
    return _unrows(index, lead, dim)
