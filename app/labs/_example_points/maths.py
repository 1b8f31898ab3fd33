"""The maths panel's text (Qt-free)."""


def maths_html(s) -> str:
    test = "—" if s.test_error is None else f"{s.test_error:.3f}"
    return (f"<p>f(x) = (1/k) Σ<sub>i ∈ N<sub>k</sub>(x)</sub> y<sub>i</sub>, ŷ(x) = sign f(x): the vote of the "
            f"k = {s.k} training points nearest to x ({s.metric} distance). The map shades f; its line is f = 0.</p>"
            f"<p>Training error {s.train_error:.3f} (0 at k = 1: a point is its own nearest), test error {test}.</p>")
