"""Shapes and indices: views, rearranging, joining, diagonals, indexing, scatter, masks."""
