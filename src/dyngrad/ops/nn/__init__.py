"""The ops under torch.nn.functional: convolution, linear, losses, norms, pooling, embedding."""
