"""The topics lab: latent Dirichlet allocation learned by collapsed Gibbs sampling, topics emerging sweep by sweep."""
