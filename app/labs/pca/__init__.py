"""PCA digit compression lab: eigen-digits by the power method, compression, scores, novelty, solver race."""
