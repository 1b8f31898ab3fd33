"""Spectral methods lab: Fisher vs PCA, spectral clustering against k-means, kernel PCA, CCA."""
