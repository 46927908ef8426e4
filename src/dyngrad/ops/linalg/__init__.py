"""Linear algebra: products, decompositions, Cholesky, einsum, distances."""
