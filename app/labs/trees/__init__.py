"""Trees and boosting lab: AdaBoost with stumps, decision trees, bagging and random forests, live."""
