"""torch.fft's ops: the three transforms of the op table (`transforms`), PyTorch's argument
rules (`arguments`), the public transforms built on them (`one_dim`, `n_dim`) and the helpers
(`frequencies`)."""
