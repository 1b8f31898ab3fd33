"""Neural networks: a multilayer perceptron trained by backpropagation on labelled points, every step in numbers."""
