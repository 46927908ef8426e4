"""The graph layer: nodes, saved values, pass numbering, grad-mode and anomaly state.

It sits above the tensor and below the ops that record nodes (DESIGN.md: backend < tensor <
graph < ops < autograd < library < tools). Nothing here runs a backward pass: that is the
engine's, in `dyngrad.autograd`.
"""
