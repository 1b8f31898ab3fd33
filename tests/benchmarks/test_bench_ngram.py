"""Speed of smlengine.ngram on the whole Shakespeare corpus, and against NLTK's nltk.lm.

Run: .venv/bin/python -m pytest -q -s -o addopts="" -m benchmark tests/benchmarks/test_bench_ngram.py
Targets from issue 4: fitting N = 1..5 <= 3 s in total; 10,000 generated tokens <= 0.2 s with
any smoothing; trigram MLE/Laplace fit >= 20x and generation >= 10x faster than NLTK, with
identical counts. Timings are printed, not asserted (a loaded machine must not fail CI).
"""

import time

import pytest

from _bench_table import best_time, record
from smlengine.datasets import load_corpus
from smlengine.ngram import BOS, NGramModel, split_sentences, tokenize

pytestmark = pytest.mark.benchmark


@pytest.fixture(scope="module")
def tokens():
    t0 = time.perf_counter()
    toks = tokenize(load_corpus("shakespeare"))
    print(f"\n[corpus] {len(toks):,} tokens, tokenized in {time.perf_counter() - t0:.2f} s")
    return toks


def _best(fn, repeat=3):
    return best_time(fn, repeat)


def test_fit_all_orders_and_generate(tokens):
    total = 0.0
    for n in range(1, 6):
        dt, m = _best(lambda: NGramModel(n=n, smoothing="kneser-ney").fit(tokens), repeat=2)
        total += dt
        print(f"[fit] N={n}: {dt:.2f} s  distinct n-grams {m.n_ngrams_[-1]:,}")
    print(f"[fit] N=1..5 total {total:.2f} s (target <= 3 s)")
    for n in (3, 5):
        for smoothing in ("mle", "laplace", "kneser-ney"):
            m = NGramModel(n=n, smoothing=smoothing).fit(tokens)
            dt, _ = _best(lambda: m.generate(10_000, random_state=0))
            dts, _ = _best(lambda: list(m.generate_steps(1_000, random_state=0)), repeat=1)
            print(f"[generate] N={n} {smoothing:10s}: 10,000 tokens {dt:.3f} s (target <= 0.2 s); "
                  f"generate_steps {dts:.2f} ms/token")
    m = NGramModel(n=5, smoothing="kneser-ney").fit(tokens)
    dt, ev = _best(lambda: m.evaluate(tokens[:100_000]), repeat=1)
    print(f"[evaluate] N=5 KN, 100,000 tokens: {dt:.2f} s, perplexity {ev.perplexity:.1f}")


_sentences = split_sentences  # the engine's own sentence cutting


@pytest.mark.parametrize("smoothing", ["mle", "laplace"])
def test_versus_nltk_trigram(tokens, smoothing):
    nltk_lm = pytest.importorskip("nltk.lm")
    from nltk.util import everygrams, pad_sequence

    n = 3
    sents = _sentences(tokens)
    t0 = time.perf_counter()
    padded = [list(pad_sequence(s, n, pad_left=True, left_pad_symbol=BOS)) for s in sents]
    lm = nltk_lm.MLE(n) if smoothing == "mle" else nltk_lm.Laplace(n)
    lm.fit([list(everygrams(p, max_len=n)) for p in padded], vocabulary_text=tokens)
    t_nltk = time.perf_counter() - t0
    t_ours, ours = _best(lambda: NGramModel(n=n, smoothing=smoothing).fit(tokens))

    # identical counts on every context of the first 20,000 events
    checked = 0
    for p in padded[:2500]:
        for i in range(n - 1, len(p)):
            ctx = tuple(p[i - n + 1:i])
            if checked < 3000:
                assert ours.counts(list(ctx)) == {w: c for w, c in lm.counts[lm.vocab.lookup(ctx)].items() if c}
                checked += 1

    words = 300
    t0 = time.perf_counter()
    lm.generate(words, text_seed=[BOS, BOS], random_seed=0)
    t_gen_nltk = (time.perf_counter() - t0) / words
    t_gen_ours, _ = _best(lambda: ours.generate(10_000, random_state=0))
    t_gen_ours /= 10_000
    print(f"\n[nltk {smoothing} trigram] fit: NLTK {t_nltk:.2f} s, ours {t_ours:.2f} s, ratio {t_nltk / t_ours:.1f}x "
          f"(target >= 20x); generation: NLTK {t_gen_nltk * 1e3:.3f} ms/word, ours {t_gen_ours * 1e3:.4f} ms/word, "
          f"ratio {t_gen_nltk / t_gen_ours:.0f}x (target >= 10x); counts identical on {checked} contexts")
    record("NGramModel", f"fit, trigram {smoothing}, Shakespeare", t_ours, t_nltk,
           f"NLTK nltk.lm.{type(lm).__name__}(3)")
    record("NGramModel", f"generate, trigram {smoothing}, per word", t_gen_ours, t_gen_nltk,
           f"NLTK nltk.lm.{type(lm).__name__}(3).generate")


def test_kneser_ney_versus_nltk(tokens):
    nltk_lm = pytest.importorskip("nltk.lm")
    from nltk.util import everygrams, pad_sequence

    n = 3
    sents = _sentences(tokens)
    padded = [list(pad_sequence(s, n, pad_left=True, left_pad_symbol=BOS)) for s in sents]
    lm = nltk_lm.KneserNeyInterpolated(n)
    t0 = time.perf_counter()
    lm.fit([list(everygrams(p, max_len=n)) for p in padded], vocabulary_text=tokens)
    t_fit = time.perf_counter() - t0
    # NLTK draws a word by scoring every vocabulary word; time 50 scores and extrapolate.
    words = list(lm.vocab)[:50]
    t0 = time.perf_counter()
    for w in words:
        lm.score(w, ["my", "good"])
    per_score = (time.perf_counter() - t0) / len(words)
    per_word = per_score * len(lm.vocab)
    ours = NGramModel(n=n, smoothing="kneser-ney").fit(tokens)
    dt, _ = _best(lambda: ours.generate(10_000, random_state=0))
    print(f"\n[nltk KneserNeyInterpolated trigram] fit {t_fit:.2f} s; one score {per_score * 1e3:.2f} ms, so about "
          f"{per_word:.1f} s per generated word (|V| = {len(lm.vocab):,}); ours {dt / 10_000 * 1e3:.4f} ms/word, "
          f"ratio about {per_word / (dt / 10_000):,.0f}x")
    record("NGramModel", "generate, trigram Kneser-Ney, per word", dt / 10_000, per_word,
           "NLTK KneserNeyInterpolated(3) (50 scores, extrapolated)")
