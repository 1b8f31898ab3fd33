"""N-gram models: hand-computed cases, invariants and agreement with NLTK's nltk.lm."""

import math

import numpy as np
import pytest

from smlengine.datasets import load_play
from smlengine.ngram import (
    split_sentences,
    BOS,
    EOS,
    UNK,
    NGramModel,
    NGramStep,
    detokenize,
    entropy,
    split_lines,
    tokenize,
    zipf,
)

TINY = "The cat sat on the mat.\nThe dog sat on the log.\nThe cat saw the dog!\n"


@pytest.fixture(scope="module")
def hamlet_tokens():
    return tokenize(load_play("Hamlet"))


@pytest.fixture(scope="module")
def plays_split():
    text = "\n".join(load_play(t) for t in ("Hamlet", "Macbeth", "Othello", "King Lear", "Twelfth Night"))
    return split_lines(tokenize(text), test_fraction=0.1, random_state=0)


sentences = split_sentences  # the engine's own sentence cutting


# ----------------------------------------------------------------- tokenize
def test_tokenize_words_punctuation_and_line_ends():
    assert tokenize("To be, or not to be.\nWho's there?\n") == [
        "to", "be", ",", "or", "not", "to", "be", ".", EOS, "who", "'", "s", "there", "?", EOS,
    ]
    assert tokenize("Hi  there", lowercase=False) == ["Hi", "there"]  # no final newline: no marker
    assert tokenize("a\n\n\nb\n") == ["a", EOS, "b", EOS]  # blank lines add nothing


def test_tokenize_chars():
    assert tokenize("Ab  c\nd\n", level="char") == ["a", "b", " ", "c", EOS, "d", EOS]


def test_tokenize_bad_input():
    with pytest.raises(ValueError, match="empty"):
        tokenize("")
    with pytest.raises(ValueError, match="empty"):
        tokenize("  \n\t\n")
    with pytest.raises(TypeError):
        tokenize(b"bytes")
    with pytest.raises(ValueError, match="level"):
        tokenize("x", level="sentence")


def test_detokenize_round_trip_is_readable():
    toks = tokenize("To be, or not to be: that is the question.\nWho's there?\n")
    assert detokenize(toks) == "to be, or not to be: that is the question.\nwho's there?\n"
    assert detokenize(tokenize("ab c\n", level="char"), level="char") == "ab c\n"


# ----------------------------------------------------------------- hand-computed counts
def test_bigram_mle_by_hand():
    toks = tokenize(TINY)
    m = NGramModel(n=2).fit(toks)
    assert m.vocab_[0] == UNK and EOS in m.vocab_ and BOS not in m.vocab_
    # "the" is followed by cat, mat, dog, log, cat, dog
    assert m.counts(["the"]) == {"cat": 2, "dog": 2, "log": 1, "mat": 1}
    assert m.prob("cat", ["the"]) == pytest.approx(2 / 6)
    assert m.prob("the", [BOS]) == 1.0  # every line starts with "the"
    assert m.counts() == {"the": 3}
    assert m.prob("sat", ["zebra"]) == 0.0  # unseen context: MLE undefined -> 0
    assert m.n_tokens_ == len(toks) and m.n_sentences_ == 3


def test_laplace_by_hand():
    toks = tokenize(TINY)
    m = NGramModel(n=2, smoothing="laplace", k=0.5).fit(toks)
    V = len(m.vocab_)
    assert m.prob("cat", ["the"]) == pytest.approx((2 + 0.5) / (6 + 0.5 * V))
    assert m.prob("unheard", ["the"]) == pytest.approx(0.5 / (6 + 0.5 * V))
    assert m.prob("cat", ["zebra"]) == pytest.approx(1 / V)


def test_unigram_model():
    toks = tokenize(TINY)
    m = NGramModel(n=1).fit(toks)
    assert m.prob("the", None) == pytest.approx(6 / len(toks))
    assert m.next_distribution().sum() == pytest.approx(1.0)


# ----------------------------------------------------------------- NLTK agreement
def _nltk_model(cls, n, tokens, **kw):
    nltk_lm = pytest.importorskip("nltk.lm")
    from nltk.util import everygrams, pad_sequence

    padded = [list(pad_sequence(s, n, pad_left=True, left_pad_symbol=BOS)) for s in sentences(tokens)]
    lm = getattr(nltk_lm, cls)(n, **kw) if cls != "Lidstone" else nltk_lm.Lidstone(kw["gamma"], n)
    # the vocabulary is the unpadded tokens, so len(vocab) = |V| (tokens + <UNK>); NLTK then
    # maps the pad '<s>' to '<UNK>' in training and scoring alike, which renames it only.
    lm.fit([list(everygrams(p, max_len=n)) for p in padded], vocabulary_text=tokens)
    return lm


def _nltk_events(n, tokens):
    from nltk.util import ngrams, pad_sequence

    return [g for s in sentences(tokens) for g in ngrams(pad_sequence(s, n, pad_left=True, left_pad_symbol=BOS), n)]


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("smoothing", ["mle", "laplace"])
def test_counts_probabilities_and_perplexity_equal_nltk(hamlet_tokens, n, smoothing):
    train = hamlet_tokens[:12_000]
    test = hamlet_tokens[12_000:13_000]
    ours = NGramModel(n=n, smoothing=smoothing).fit(train)
    lm = _nltk_model("MLE" if smoothing == "mle" else "Laplace", n, train)
    assert len(lm.vocab) == len(ours.vocab_)

    events = _nltk_events(n, train)
    contexts = list(dict.fromkeys(g[:-1] for g in events))[:300]
    for ctx in contexts:
        theirs = lm.counts[lm.vocab.lookup(ctx)] if n > 1 else lm.counts.unigrams
        expected = {w: c for w, c in theirs.items() if c}
        got = ours.counts(list(ctx))
        assert got == expected  # at n = 1 NLTK's unigram table has no pads either
        for w in list(got)[:5] + ["the", "unheard-of"]:
            assert ours.prob(w, list(ctx)) == pytest.approx(lm.score(w, ctx), rel=1e-12, abs=1e-15)

    # perplexity on text without unseen events (the training text itself) ...
    assert ours.perplexity(train) == pytest.approx(lm.perplexity(events), rel=1e-9)
    assert ours.cross_entropy(train) == pytest.approx(lm.entropy(events), rel=1e-9)
    # ... and on held-out lines, where only Laplace stays finite. Lines with out-of-vocabulary
    # words are left out: NLTK would look their contexts up as '<UNK>', i.e. as the pad here.
    known = set(train)
    test = [t for s in sentences(test) if set(s) <= known for t in s]
    held = _nltk_events(n, test)
    assert ours.perplexity(test) == pytest.approx(lm.perplexity(held), rel=1e-9)
    if smoothing == "mle" and n > 1:
        assert math.isinf(ours.perplexity(test))


def test_mle_perplexity_reports_zero_probability_events():
    m = NGramModel(n=2).fit(tokenize(TINY))
    ev = m.evaluate(tokenize("the cat sat on the dog.\nthe unicorn sat.\n"))
    # 13 events; unseen bigrams: (dog, .), (the, unicorn), (unicorn, sat), (sat, .)
    assert math.isinf(ev.perplexity) and math.isinf(ev.cross_entropy)
    assert ev.n_zero == 4 and ev.n_oov == 1 and ev.n_events == 13
    assert math.isinf(m.perplexity(tokenize("the unicorn\n")))


# ----------------------------------------------------------------- Kneser-Ney
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_kneser_ney_distributions_sum_to_one(hamlet_tokens, n):
    m = NGramModel(n=n, smoothing="kneser-ney", discount=0.75).fit(hamlet_tokens)
    contexts = [None, ["to", "be"], ["my", "lord"], ["the", "king", "'", "s"], ["zounds", "qwerty", "xyz"],
                [EOS], ["qwerty", "the"], ["to", "be", ",", "or", "not"]]
    for ctx in contexts:
        p = m.next_distribution(ctx)
        assert p.shape == (len(m.vocab_),)
        assert abs(p.sum() - 1.0) < 1e-9
        assert (p > 0).all()  # interpolation with the uniform level
        # the vectorised scorer agrees with the distribution
        for w in ("the", "lord", ",", EOS, "unheard-of", UNK):
            idx = m.vocab_.index(w) if w in m.vocab_ else 0
            assert m.prob(w, ctx) == pytest.approx(p[idx], rel=1e-12)


@pytest.mark.parametrize("smoothing", ["mle", "laplace"])
def test_distributions_sum_to_one_and_match_prob(hamlet_tokens, smoothing):
    m = NGramModel(n=3, smoothing=smoothing).fit(hamlet_tokens)
    for ctx in (None, ["my", "good"], ["good", "lord"]):
        p = m.next_distribution(ctx)
        assert abs(p.sum() - 1.0) < 1e-9
        for w in ("lord", "the", EOS):
            assert m.prob(w, ctx) == pytest.approx(p[m.vocab_.index(w)], rel=1e-12, abs=1e-300)
    # MLE backs off to a seen suffix for an unseen context (documented), prob stays strict
    p = m.next_distribution(["qwerty", "lord"])
    assert abs(p.sum() - 1) < 1e-9


def test_kneser_ney_beats_laplace_on_held_out_shakespeare(plays_split):
    train, test = plays_split
    kn = NGramModel(n=3, smoothing="kneser-ney").fit(train).evaluate(test)
    lap = NGramModel(n=3, smoothing="laplace").fit(train).evaluate(test)
    mle = NGramModel(n=3, smoothing="mle").fit(train).evaluate(test)
    assert kn.n_zero == 0 and lap.n_zero == 0
    assert kn.perplexity < 0.5 * lap.perplexity
    assert math.isinf(mle.perplexity) and mle.n_zero > 0
    # with KN, a higher order does not hurt much and beats the unigram model by far
    uni = NGramModel(n=1, smoothing="kneser-ney").fit(train).perplexity(test)
    assert kn.perplexity < 0.7 * uni


# ----------------------------------------------------------------- generation
@pytest.mark.parametrize("smoothing", ["mle", "laplace", "kneser-ney"])
def test_generation_is_deterministic_and_matches_steps(hamlet_tokens, smoothing):
    m = NGramModel(n=3, smoothing=smoothing).fit(hamlet_tokens)
    a = m.generate(200, random_state=7)
    assert a == m.generate(200, random_state=7)
    assert a != m.generate(200, random_state=8)
    steps = list(m.generate_steps(200, random_state=7))
    assert "".join(s.piece for s in steps) == a
    assert [s.step for s in steps] == list(range(1, 201)) and steps[-1].progress == 1.0
    s = steps[10]
    assert isinstance(s, NGramStep) and len(s.context) == 2
    assert not s.top_probs.flags.writeable and not s.top_ids.flags.writeable
    assert list(s.top_probs) == sorted(s.top_probs, reverse=True)
    assert all(t != UNK for t in (st.token for st in steps))
    # same with temperature and top-k (the slow path)
    b = m.generate(50, temperature=0.7, top_k=10, random_state=3)
    assert b == "".join(x.piece for x in m.generate_steps(50, temperature=0.7, top_k=10, random_state=3))


def test_bigram_mle_generates_only_observed_continuations(hamlet_tokens):
    m = NGramModel(n=2).fit(hamlet_tokens)
    prev = BOS
    for s in m.generate_steps(2000, random_state=1):
        assert s.ngram_in_corpus and s.order == 2
        assert s.context == (prev,)
        assert s.token in m.counts([prev])
        assert s.span_length >= 2 or prev == BOS
        prev = BOS if s.token == EOS else s.token


def test_temperature_to_zero_gives_arg_max(hamlet_tokens):
    m = NGramModel(n=3, smoothing="kneser-ney").fit(hamlet_tokens)
    for temperature in (0, 1e-4):
        for s in m.generate_steps(60, context=["to", "be"], temperature=temperature, random_state=5):
            p = m.next_distribution(list(s.context))
            p[0] = 0.0
            assert s.token_id == int(np.argmax(p))
            assert s.probability == pytest.approx(1.0)


def test_top_k_restricts_the_choice(hamlet_tokens):
    m = NGramModel(n=2, smoothing="laplace").fit(hamlet_tokens)
    for s in m.generate_steps(100, top_k=3, random_state=2):
        assert s.token in s.top_tokens[:3] and np.count_nonzero(s.top_probs) <= 3


def test_verbatim_spans_are_real_and_maximal():
    toks = tokenize(TINY * 2 + "the cat sat on the log.\n")
    m = NGramModel(n=4).fit(toks)
    text = toks
    gen = []
    for s in m.generate_steps(300, random_state=0):
        gen.append(s.token)
        L = s.span_length

        def occurs(seq):
            k = len(seq)
            return any(text[i:i + k] == seq for i in range(len(text) - k + 1))

        assert L >= 1 and occurs(gen[-L:])
        assert L == len(gen) or not occurs(gen[-L - 1:])
    assert s.longest_span >= 5  # a 4-gram MLE model quotes whole lines


def test_context_and_argument_errors(hamlet_tokens):
    m = NGramModel(n=3).fit(hamlet_tokens[:3000])
    with pytest.raises(TypeError, match="tokenize"):
        m.counts("to be")
    with pytest.raises(ValueError, match="length"):
        m.generate(0)
    with pytest.raises(ValueError, match="temperature"):
        m.generate(5, temperature=-1)
    with pytest.raises(ValueError, match="top_k"):
        m.generate(5, top_k=0)
    with pytest.raises(Exception, match="not fitted"):
        NGramModel().prob("a")


# ----------------------------------------------------------------- validation and fit_steps
@pytest.mark.parametrize(
    "params, exc, msg",
    [
        ({"n": 0}, ValueError, r"n must be an int in \[1, 10\]; got 0"),
        ({"n": 2.5}, TypeError, "n must be"),
        ({"k": -1}, ValueError, r"k must be a float in \[0, 1e6\]; got -1"),
        ({"discount": 0}, ValueError, "discount"),
        ({"discount": 1.5}, ValueError, "discount"),
        ({"smoothing": "good-turing"}, ValueError, "smoothing"),
    ],
)
def test_bad_parameters(params, exc, msg):
    with pytest.raises(exc, match=msg):
        NGramModel(**params).fit(["a", "b"])


def test_bad_tokens():
    with pytest.raises(ValueError, match="empty"):
        NGramModel().fit([])
    with pytest.raises(TypeError, match="tokenize"):
        NGramModel().fit("to be or not")
    with pytest.raises(TypeError, match="strings"):
        NGramModel().fit(["a", 3])
    with pytest.raises(ValueError, match="reserved"):
        NGramModel().fit(["a", BOS])


def test_fit_steps_reports_progress_and_fit_equals_last_step(hamlet_tokens):
    m = NGramModel(n=3, smoothing="kneser-ney")
    snaps = list(m.fit_steps(hamlet_tokens))
    assert snaps[-1].progress == 1.0 and snaps[-1].phase == "done"
    assert [s.progress for s in snaps] == sorted(s.progress for s in snaps)
    p1 = m.next_distribution(["my", "lord"])
    p2 = NGramModel(n=3, smoothing="kneser-ney").fit(hamlet_tokens).next_distribution(["my", "lord"])
    np.testing.assert_array_equal(p1, p2)
    assert m.get_params() == {"n": 3, "smoothing": "kneser-ney", "k": 1.0, "discount": 0.75}


# ----------------------------------------------------------------- information
def test_entropy_of_uniform_27_symbols():
    stream = list("abcdefghijklmnopqrstuvwxyz ") * 100
    assert entropy(stream) == pytest.approx(math.log2(27), abs=1e-12)
    rng = np.random.default_rng(0)
    random_stream = rng.integers(0, 27, 200_000).tolist()
    assert entropy(random_stream) == pytest.approx(math.log2(27), abs=0.01)
    assert entropy(["a"] * 10) == 0.0


def test_english_letters_carry_less_than_uniform(hamlet_tokens):
    chars = [c for c in tokenize(load_play("Hamlet"), level="char") if c.isalpha() or c == " "]
    assert 3.9 < entropy(chars) < 4.3


def test_zipf_sorted(hamlet_tokens):
    rank, freq = zipf(hamlet_tokens)
    assert rank[0] == 1 and (np.diff(rank) == 1).all()
    assert (np.diff(freq) <= 0).all() and freq.sum() == len(hamlet_tokens)
    with pytest.raises(ValueError):
        zipf([])


def test_split_lines_keeps_whole_lines(hamlet_tokens):
    train, test = split_lines(hamlet_tokens, 0.2, random_state=0)
    assert len(train) + len(test) == len(hamlet_tokens)
    assert train[-1] == EOS and test[-1] == EOS
    assert split_lines(hamlet_tokens, 0.2, random_state=0) == (train, test)


def test_changing_structure_after_fit_needs_refit():
    m = NGramModel(n=2, smoothing="kneser-ney").fit(tokenize(TINY))
    m.set_params(discount=0.5)
    with pytest.raises(ValueError, match="fit again"):
        m.next_distribution(["the"])
    m.fit(tokenize(TINY))
    assert abs(m.next_distribution(["the"]).sum() - 1) < 1e-12


def test_character_level_model():
    chars = tokenize(load_play("Macbeth"), level="char")
    m = NGramModel(n=5, smoothing="kneser-ney").fit(chars)
    text = m.generate(300, random_state=0, level="char")
    assert len(text) == 300 and all(len(s.piece) == 1 for s in m.generate_steps(20, random_state=0, level="char"))
    assert m.perplexity(tokenize("tomorrow, and tomorrow\n", level="char")) < 10


def _kneser_ney_reference(tokens, n, D):
    """Interpolated Kneser-Ney written directly from the formula (dicts, no numpy).

    Sentences end after '</s>' and are padded with n - 1 '<s>'. The highest order uses
    the counts c(h w); a lower order m uses continuation counts N1+(. h w), the number of
    distinct (m+1)-grams ending in h w. Each level interpolates with the next lower one
    with weight D N1+(h .) / c'(h .); the unigram level with the uniform 1/|V|; an unseen
    context passes straight to the lower level.
    """
    from collections import Counter, defaultdict

    sents, cur = [], []
    for t in tokens:
        cur.append(t)
        if t == "</s>":
            sents.append(cur)
            cur = []
    if cur:
        sents.append(cur)
    windows = []
    for s in sents:
        padded = ["<s>"] * (n - 1) + s
        windows += [tuple(padded[i - n + 1:i + 1]) for i in range(n - 1, len(padded))]
    counts = {n: Counter(windows)}
    for m in range(n - 1, 0, -1):
        counts[m] = Counter(g[1:] for g in counts[m + 1])  # distinct (m+1)-grams ending in g
    totals, types = {}, {}
    for m in range(1, n + 1):
        tot, typ = defaultdict(int), defaultdict(int)
        for g, c in counts[m].items():
            tot[g[:-1]] += c
            typ[g[:-1]] += 1
        totals[m], types[m] = tot, typ
    V = len(set(tokens) | {"<UNK>"})

    def prob(w, h):
        h = tuple(h)
        m = len(h) + 1
        lower = 1.0 / V if m == 1 else prob(w, h[1:])
        tot = totals[m].get(h, 0)
        if tot == 0:
            return lower
        return max(counts[m].get(h + (w,), 0) - D, 0.0) / tot + D * types[m][h] / tot * lower

    return prob


@pytest.mark.parametrize("n", [1, 2, 3])
def test_kneser_ney_equals_the_formula(n):
    text = ("the cat sat on the mat </s> the dog sat on the log </s> a cat saw the dog </s> "
            "the mat was on the cat </s> a dog and a cat sat </s>").split()
    D = 0.6
    model = NGramModel(n=n, smoothing="kneser-ney", discount=D).fit(text)
    ref = _kneser_ney_reference(text, n, D)
    contexts = [["<s>"] * (n - 1), ["the", "cat"][2 - (n - 1):] if n > 1 else [],
                ["sat", "on"][2 - (n - 1):] if n > 1 else [], ["dog", "cat"][2 - (n - 1):] if n > 1 else []]
    for ctx in contexts:
        for w in model.vocab_:
            if w == "<UNK>":
                continue
            assert model.prob(w, ctx) == pytest.approx(ref(w, ctx), rel=1e-12), (w, ctx)


# ----------------------------------------------------------------- short steps on long inputs
_FIELDS = ("keys", "word", "count", "kn", "start", "end", "tot", "kn_tot", "kn_types", "rcum", "dcum", "lam")


def _synthetic_tokens(n_tokens, seed=0):
    """Lines of about 12 tokens: one word in ten is "the", the others uniform over 3,000
    words, so the line start and "the" are contexts more frequent than a bucket."""
    rng = np.random.default_rng(seed)
    words = np.array([f"w{i}" for i in range(3000)] + ["the", EOS])
    pick = rng.integers(0, 3000, n_tokens)
    pick[rng.random(n_tokens) < 0.1] = 3000
    pick[rng.random(n_tokens) < 0.08] = 3001
    return words[pick].tolist()


class _SizeProbe:
    """Stands in for numpy inside smlengine.ngram and records the largest input of every
    sort, unique and fromiter, and the number of tokens of every dict pass, since the last
    reset: the work of a step that cannot be interrupted."""

    SORTS = ("unique", "sort", "argsort", "lexsort", "fromiter")

    def __init__(self, monkeypatch):
        import smlengine.ngram as ngram

        self.largest = 0
        self._np = np
        real_distinct = ngram._distinct_strings

        def distinct(tokens, *a, **k):
            self.largest = max(self.largest, len(tokens))
            return real_distinct(tokens, *a, **k)

        monkeypatch.setattr(ngram, "np", self)
        monkeypatch.setattr(ngram, "_distinct_strings", distinct)

    def __getattr__(self, name):
        fn = getattr(self._np, name)
        if name not in self.SORTS:
            return fn

        def probe(a, *args, **kw):
            size = kw["count"] if name == "fromiter" else np.size(a) if name != "lexsort" else np.size(a[0])
            self.largest = max(self.largest, int(size))
            return fn(a, *args, **kw)

        return probe


def test_every_fit_step_sorts_or_maps_at_most_two_chunks_of_tokens(monkeypatch):
    """No step of a fit (nor of the verbatim index) sorts or maps more than 2 CHUNK tokens, on
    a stream 40 chunks long, at every order; each long phase has one step per chunk."""
    import smlengine.ngram as ngram

    monkeypatch.setattr(ngram, "CHUNK", 500)
    toks = _synthetic_tokens(20_000)
    probe = _SizeProbe(monkeypatch)
    for n in (1, 3, 5):
        ngram._ENCODINGS.clear()
        model = NGramModel(n=n, smoothing="kneser-ney")
        phases = []
        for s in model.fit_steps(toks):
            phases.append(s.phase)
            assert probe.largest <= 2 * 500, (n, s.phase, probe.largest)
            probe.largest = 0
        assert phases.count("vocabulary") >= 2 * 40
        for m in range(2, n + 1):
            assert phases.count(f"counting {m}-grams") >= 20
        steps = list(model.verbatim_index_steps())
        assert probe.largest <= 2 * 500 and len(steps) == 20
    monkeypatch.undo()


def test_chunked_fit_is_bit_identical_to_one_chunk(monkeypatch):
    import smlengine.ngram as ngram

    toks = _synthetic_tokens(6_000, seed=1)
    for n in (2, 4):
        whole = NGramModel(n=n, smoothing="kneser-ney").fit(toks)
        monkeypatch.setattr(ngram, "CHUNK", 50)  # buckets of 100 events; the line start is ~480 alone
        monkeypatch.setattr(ngram, "_ENCODINGS", ngram.LRUCache(1))
        snaps = list(NGramModel(n=n, smoothing="kneser-ney").fit_steps(toks))
        parts = NGramModel(n=n, smoothing="kneser-ney").fit(toks)
        monkeypatch.undo()
        assert [s.step for s in snaps] == list(range(len(snaps))) and len(snaps) > 200
        assert [s.progress for s in snaps] == sorted(s.progress for s in snaps)
        assert parts.vocab_ == whole.vocab_ and parts.n_ngrams_ == whole.n_ngrams_
        for m in range(1, n + 1):
            for f in _FIELDS:
                a, b = getattr(whole._orders[m], f), getattr(parts._orders[m], f)
                assert a.dtype == b.dtype and np.array_equal(a, b), (n, m, f)
        for j in range(2, n):
            np.testing.assert_array_equal(whole._U[j], parts._U[j])
        assert parts.generate(200, random_state=4) == whole.generate(200, random_state=4)


def test_verbatim_index_is_the_stable_sort_of_the_ids(monkeypatch):
    import smlengine.ngram as ngram

    model = NGramModel(n=2).fit(_synthetic_tokens(5_000, seed=2))
    monkeypatch.setattr(ngram, "CHUNK", 100)
    steps = list(model.verbatim_index_steps())
    assert len(steps) == 25 and steps == sorted(steps)
    order, bounds = model._occ
    np.testing.assert_array_equal(order, np.argsort(model._ids, kind="stable"))
    np.testing.assert_array_equal(bounds, np.searchsorted(model._ids[order], np.arange(len(model.vocab_) + 1)))
    assert len(list(model.verbatim_index_steps())) == 25  # the same steps once built


def test_k_set_after_fit_is_checked_where_it_is_used():
    model = NGramModel(2, "laplace").fit(tokenize("a b a c\nb a b\n"))
    model.set_params(k=1e308)  # add-k is applied at query time
    with pytest.raises(ValueError, match=r"^k must be a float in \[0, 1e6\]; got 1e308$"):
        model.prob("a", ["b"])
    with pytest.raises(ValueError, match=r"^k must be a float"):
        model.perplexity(tokenize("a b\n"))
