"""`torch._foreach_*`: list-at-a-time forms of the per-element ops, one node per call."""
