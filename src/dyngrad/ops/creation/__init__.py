"""Making tensors: factories, ranges, random numbers, and dtype/device conversion."""
