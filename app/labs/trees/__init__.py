"""Trees and boosting lab: AdaBoost with stumps, decision trees, bagging and random forests, live."""

# The registry reads META without importing the lab (start-up stays fast);
# LAB, the Lab subclass, is imported on first use.
META = {
    "id": "trees",
    "title": "Trees and boosting",
    "order": 20,
    "description": "AdaBoost with stumps round by round, a decision tree growing split by split, bagging and random forests with out-of-bag error and votes.",
}


def __getattr__(name: str):
    if name == "LAB":
        from .lab import TreesLab

        return TreesLab
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["META", "LAB"]
