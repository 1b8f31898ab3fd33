"""n-gram text generation: from unigram word salad to 5-grams quoting Shakespeare."""

# The registry reads META without importing the lab (start-up stays fast);
# LAB, the Lab subclass, is imported on first use.
META = {
    "id": "ngrams",
    "title": "n-gram text generation",
    "order": 60,
    "description": "Count n-grams in Shakespeare, then write new text one token at a time.",
}


def __getattr__(name: str):
    if name == "LAB":
        from .lab import NGramsLab

        return NGramsLab
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["META", "LAB"]
