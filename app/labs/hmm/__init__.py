"""Hidden Markov models lab: the dishonest casino, filtering, smoothing, Viterbi and Baum-Welch."""

# The registry reads META without importing the lab (start-up stays fast);
# LAB, the Lab subclass, is imported on first use.
META = {
    "id": "hmm",
    "title": "Hidden Markov models",
    "order": 75,
    "description": "The dishonest casino: filtering roll by roll, smoothing and the Viterbi path, the trellis, "
    "and learning the dice by Baum–Welch.",
}


def __getattr__(name: str):
    if name == "LAB":
        from .lab import HMMLab

        return HMMLab
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["META", "LAB"]
