"""Template lab: the running mean and covariance of points in the plane (copy this folder to start a lab)."""
