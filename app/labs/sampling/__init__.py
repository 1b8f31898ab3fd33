"""Monte Carlo sampling: rejection sampling, Metropolis–Hastings with its diagnostics, Gibbs on a Potts field."""
