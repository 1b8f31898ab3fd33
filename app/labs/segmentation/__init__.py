"""Image segmentation as clustering: k-means and EM (multinomial and Gaussian mixtures) on pixels."""
