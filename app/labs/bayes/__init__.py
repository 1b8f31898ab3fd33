"""Bayesian inference and decision: conjugate posteriors one observation at a time, the Bayes classifier,
generative against discriminative."""
