"""Gaussian mixtures and EM in the plane: E- and M-step you can watch, k-means as its limit, how many clusters."""
