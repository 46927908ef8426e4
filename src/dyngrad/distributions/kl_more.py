"""KL divergences PyTorch registers for the distributions added with Gumbel and friends."""
