"""Template lab: k nearest neighbours on labelled points with a decision map (copy it to start a points lab)."""
