"""Array helpers with no Tensors in sight: BLAS-shaped sums and products, im2col, erf and
the gamma family on arrays."""
