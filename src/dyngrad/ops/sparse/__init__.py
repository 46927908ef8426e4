"""Sparse COO tensors: construction and conversion, products and sums, and the sparse
forwards of the table's rows (See Note [Sparse COO arrays])."""
