"""Regression lab: least squares, ridge and lasso on basis functions, their paths and constraint
regions, and the bias–variance trade-off."""
