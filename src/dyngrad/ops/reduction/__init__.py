"""Reductions: sums and extrema, statistics, cumulative ops, norms, sorting, softmax."""
