"""The maths panel's text (Qt-free)."""


def maths_html(s) -> str:
    return (f"<p>x̄<sub>n</sub> = x̄<sub>n−1</sub> + (x<sub>n</sub> − x̄<sub>n−1</sub>) / n, n = {s.n}</p>"
            f"<p>x̄ = ({s.mean[0]:.3f}, {s.mean[1]:.3f}); the ellipses are (x − x̄)ᵀ S⁻¹ (x − x̄) = 1 and 4.</p>")
