"""Monte Carlo sampling: rejection sampling, Metropolis–Hastings with its diagnostics, Gibbs on a Potts field."""

# The registry reads META without importing the lab (start-up stays fast);
# LAB, the Lab subclass, is imported on first use.
META = {
    "id": "sampling",
    "title": "Monte Carlo sampling",
    "order": 90,
    "description": "Rejection sampling under M q; Metropolis–Hastings chains on 2-D targets with burn-in, "
                   "autocorrelation, ESS and R̂; Gibbs sweeps of a Potts field denoising a picture.",
}


def __getattr__(name: str):
    if name == "LAB":
        from .lab import SamplingLab

        return SamplingLab
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["META", "LAB"]
