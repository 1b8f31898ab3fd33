"""The n-gram lab's maths panel (Qt-free): the model's estimate of P(w | h) for the chosen
smoothing, the numbers of the token just generated, and entropy and perplexity."""

from __future__ import annotations

import html
import math

from .run import SMOOTHING_LABELS


def maths_html(snap) -> str:
    """The maths panel for a snapshot of any of the three runs (its own parameters)."""
    p = snap.params
    rows = ["<h3>N-gram model</h3>",
            "<p class='eq'>P(w<sub>l</sub> | w<sub>l−N+1</sub> … w<sub>l−1</sub>) = P(w | h), &nbsp; h = the N − 1 "
            "previous tokens</p>",
            "<p>Maximum likelihood (counts c):</p><p class='eq'>P(w | h) = c(h w) / c(h ·)</p>"]
    sm = p["smoothing"]
    if sm == "laplace":
        rows.append("<p>Add-k (Laplace, k = 1):</p><p class='eq'>P(w | h) = (c(h w) + k) / (c(h ·) + k |V|)</p>")
    elif sm == "kneser-ney":
        rows.append("<p>Interpolated Kneser–Ney, discount D:</p><p class='eq'>P(w | h) = max(c(h w) − D, 0) / "
                    "c(h ·)"
                    " + D N<sub>1+</sub>(h ·) / c(h ·) · P(w | h′)</p>"
                    "<p>h′ = h without its first token; lower orders use continuation counts.</p>")
    if snap.mode == "generate" and snap.kind == "token":
        rows.append(token_html(snap, p))
    elif snap.mode == "perplexity":
        rows.append(perplexity_html(snap))
    else:
        rows.append("<h3>Information</h3><p class='eq'>H = −(1/M) Σ<sub>i</sub> log₂ P(w<sub>i</sub> | "
                    "h<sub>i</sub>)"
                    " &nbsp; bits/token</p><p class='eq'>perplexity = 2<sup>H</sup></p>")
        rows.append(f"<h3>Now</h3><p class='num'>step {snap.step}<br>{html.escape(snap.phase)}</p>")
    if p["temperature"] != 1.0 or p["top_k"]:
        rows.append(f"<p>Sampling from p<sup>1/T</sup> renormalised, T = {p['temperature']:g}"
                    + (f", only the top k = {p['top_k']} tokens" if p["top_k"] else "") + ".</p>")
    return "".join(rows)


def token_html(snap, p) -> str:
    """The generated token's probability worked out with its counts."""
    ctx = " ".join(snap.context) if snap.context else "∅"
    w = snap.token
    c_hw, c_h, V = snap.count_hw, snap.count_h, snap.vocab_size
    out = [f"<h3>Now</h3><p class='num'>step {snap.step} (token {snap.index + 1})<br>"
           f"h = {html.escape(ctx)}<br>w = {html.escape(w)}<br>"
           f"c(h w) = {c_hw:,}<br>c(h ·) = {c_h:,}<br>N<sub>1+</sub>(h ·) = {snap.n_types:,}<br>|V| = {V:,}</p>"]
    sm = p["smoothing"]
    if sm == "mle":
        if c_h:
            out.append(f"<p class='eq'>P(w | h) = {c_hw:,} / {c_h:,} = {c_hw / c_h:.4f}</p>")
        else:
            out.append(f"<p>The context h was never seen: to have something to sample, the model backs off to "
                       f"its longest seen suffix (order {snap.order}).</p>")
    elif sm == "laplace":
        k = float(p["k"])
        out.append(f"<p class='eq'>P(w | h) = ({c_hw:,} + {k:g}) / ({c_h:,} + {k:g}·{V:,}) = "
                   f"{(c_hw + k) / (c_h + k * V):.4f}</p>")
    else:
        D = float(p["discount"])
        if c_h:
            out.append(f"<p class='eq'>first term = max({c_hw:,} − {D:g}, 0) / {c_h:,} = "
                       f"{max(c_hw - D, 0) / c_h:.4f}</p>"
                       f"<p class='eq'>weight of P(w | h′) = {D:g}·{snap.n_types:,} / {c_h:,} = "
                       f"{D * snap.n_types / c_h:.4f}</p>")
        else:
            out.append("<p>h was never seen: P(w | h) = P(w | h′).</p>")
    surprise = max(0.0, -math.log2(snap.probability)) if snap.probability > 0 else math.inf
    out.append(f"<p>Probability it was drawn with: <b>{snap.probability:.4f}</b>; surprise −log₂ p = "
               f"{surprise:.2f} bits. (The unknown-word token &lt;UNK&gt; is never written: its share is "
               f"removed and the rest renormalised"
               + ("; then temperature and top-k are applied" if p["temperature"] != 1.0 or p["top_k"] else "")
               + ".)</p>")
    out.append(f"<p>n-gram (h, w) in the corpus: {'yes' if snap.ngram_in_corpus else 'no'}; verbatim run ending "
               f"here: {snap.span_length} tokens (longest {snap.longest_span}).</p>")
    return "".join(out)


def vocabulary_html(snap) -> str:
    """What a uniform code over the current model's vocabulary costs: the yardstick of H."""
    unit = "word" if snap.params.get("level", "word") == "word" else "character"
    V = snap.vocab_size or int(snap.zipf_rank.size)  # the model's |V|, else the corpus's distinct tokens
    if V < 2:
        return ""
    whose = (f"the model's vocabulary, |V| = {V:,} tokens ({unit}s, the line end and &lt;UNK&gt;)"
             if snap.vocab_size else f"the corpus's {V:,} distinct tokens ({unit}s and the line end)")
    return f"<p>A uniform code over {whose} needs log₂ {V:,} ≈ {math.log2(V):.2f} bits per token.</p>"


def perplexity_html(snap) -> str:
    """Entropy, cross-entropy and perplexity of the newest cell."""
    out = ["<h3>Information</h3>",
           "<p>Entropy of the token frequencies:</p><p class='eq'>H = −Σ<sub>j</sub> p<sub>j</sub> log₂ "
           "p<sub>j</sub></p>",
           "<p>Cross-entropy on M held-out events, and perplexity:</p>"
           "<p class='eq'>H = −(1/M) Σ<sub>i</sub> log₂ P(w<sub>i</sub> | h<sub>i</sub>), &nbsp; PP = "
           "2<sup>H</sup></p>",
           vocabulary_html(snap),
           f"<h3>Now</h3><p class='num'>step {snap.step}<br>{html.escape(snap.phase)}<br>"]
    if snap.zipf_rank.size:
        out.append(f"H(corpus) = {snap.entropy_bits:.3f} bits/token<br>")
    if snap.cells:
        n, sm, pp, h, nz, m = snap.cells[-1]
        out.append(f"N = {n}, {SMOOTHING_LABELS[sm]}: M = {m:,}<br>")
        if math.isfinite(pp):
            out.append(f"H = {h:.3f} bits, PP = 2<sup>{h:.3f}</sup> = {pp:.1f}")
        else:
            out.append(f"{nz:,} events with P = 0 → H = ∞, PP = ∞")
    out.append("</p>")
    return "".join(out)
