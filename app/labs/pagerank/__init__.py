"""PageRank lab: Markov chains, the power method and the random surfer on a real web graph."""

# The registry reads META without importing the lab (start-up stays fast);
# LAB, the Lab subclass, is imported on first use.
META = {
    "id": "pagerank",
    "title": "PageRank",
    "order": 70,
    "description": "Markov chains on a web graph: the power method Pₙ₊₁ = pᵀPₙ converges to the PageRank, random surfers estimate it, and textbook chains show when it fails.",
}


def __getattr__(name: str):
    if name == "LAB":
        from .lab import PageRankLab

        return PageRankLab
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["META", "LAB"]
