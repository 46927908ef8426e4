"""Elementwise ops: arithmetic, math functions, comparisons, rounding, bits, activations."""
