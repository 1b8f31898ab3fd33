"""The hidden Markov model lab's run (Qt-free): the presets, the sampled or read sequence, and
one generator chaining the four stages the lab shows.

Stages (one snapshot each step, ``stage`` names them):

``filter``
    ``CategoricalHMM.filter_steps``: step 0 is the prior pi, step t has read x_1..x_t and
    carries alpha_t = P(z_t | x_1..x_t).
``decode``
    One step after the sequence ends: forward-backward smoothing and the Viterbi path, with
    the error rates of filtering, smoothing and Viterbi against the truth.
``trellis``
    ``CategoricalHMM.viterbi_steps``: the trellis filled column by column, then the back-track.
``learn``
    ``CategoricalHMM.fit_steps`` (Baum-Welch) on the training sequence, once per restart.

Every snapshot shares one read-only :class:`RunData` (the model, the sequence, the truth and
the whole-sequence results), so the views can redraw any step without recomputing.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from smlengine import Snapshot
from smlengine.datasets import dishonest_casino, load_play
from smlengine.hmm import BaumWelchSnapshot, CategoricalHMM

PRESETS = [("casino", "Dishonest casino"), ("letters", "Vowels and consonants"), ("custom", "Editable model")]
FACES = ("1", "2", "3", "4", "5", "6")
LETTERS = tuple("abcdefghijklmnopqrstuvwxyz")
VOWELS = frozenset("aeiou")
#: the play whose letters the letter model learns from and the lab reads
LETTER_PLAY = "Hamlet"
#: letters the letter model learns from (the lab reads the letters after them)
LETTER_TRAIN = 2000
#: pseudo-probability added to every letter of the learned emission rows (then renormalised), so
#: that a letter the training text lacks (a 'z' or 'x') is unlikely, not impossible
LETTER_FLOOR = 1e-3
WINDOW = 20  # trellis columns shown at once
#: Baum-Welch stops when an iteration raises log P(x) by less than this
TOL = 1e-6
#: a learned model whose every probability is this close to the truth's (states matched) has found it
TRUTH_WITHIN = 0.1


def casino_matrices() -> dict:
    """The dishonest casino's pi, A and B as nested lists (the editable model starts from them)."""
    m = dishonest_casino()
    return {
        "startprob": np.asarray(m.startprob).tolist(),
        "transmat": np.asarray(m.transmat).tolist(),
        "emissionprob": np.asarray(m.emissionprob).tolist(),
    }


@lru_cache(maxsize=1)
def letter_sequence() -> np.ndarray:
    """The letters a..z of the play as symbols 0..25 (everything else dropped), read-only."""
    text = re.sub(r"[^a-z]", "", load_play(LETTER_PLAY).lower())
    x = np.frombuffer(text.encode("ascii"), dtype=np.uint8).astype(np.int64) - ord("a")
    x.setflags(write=False)
    return x


@lru_cache(maxsize=1)
def letter_model() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A 2-state model learned by Baum-Welch from the first LETTER_TRAIN letters (fixed random
    start), emission rows floored by LETTER_FLOOR, states ordered so that state 0 is the one that
    emits more vowels."""
    x = letter_sequence()[:LETTER_TRAIN]
    model = CategoricalHMM(2, 26, tol=1e-3, max_iter=100, random_state=1).fit(x)
    vowel_cols = [LETTERS.index(v) for v in sorted(VOWELS)]
    order = np.argsort(-model.emissionprob_[:, vowel_cols].sum(axis=1))
    pi, A, B = model.startprob_[order], model.transmat_[np.ix_(order, order)], model.emissionprob_[order]
    B = (B + LETTER_FLOOR) / (1.0 + 26 * LETTER_FLOOR)
    for a in (pi, A, B):
        a.setflags(write=False)
    return pi, A, B


class RunData:
    """What every snapshot of a run shares (read-only; not a dataclass, so the runner's byte
    count does not walk it once per snapshot).

    ``x`` the symbols shown (T,), ``z`` the truth (T,) (the hidden die; for letters: vowel
    or not), ``x_train`` the sequence Baum-Welch learns from, ``focus`` the state whose
    probability the lab plots (loaded die, vowel state), ``filtered``/``smoothed`` (T, K),
    ``path`` the Viterbi path, ``log_delta``/``psi`` (T, K) its trellis and back-pointers,
    ``errors`` the error rates vs the truth, ``log_likelihood_train`` the true model's
    log-likelihood of ``x_train`` (what Baum-Welch is measured against).
    """

    FIELDS = ("preset", "state_names", "symbol_names", "truth_name", "pi", "A", "B", "x", "z", "x_train", "focus",
              "filtered", "smoothed", "path", "log_prob", "log_likelihood", "log_likelihood_train", "log_delta", "psi",
              "errors", "n_restarts", "window")
    __slots__ = FIELDS

    def __init__(self, **values):
        for name in self.FIELDS:
            v = values[name]
            if isinstance(v, np.ndarray):
                v = np.array(v)
                v.setflags(write=False)
            object.__setattr__(self, name, v)

    def __setattr__(self, name, value):
        raise AttributeError("RunData is read-only")

    def __eq__(self, other):
        """Equal when every field is (the same seed and parameters replay equal data)."""
        if not isinstance(other, RunData):
            return NotImplemented
        for name in self.FIELDS:
            a, b = getattr(self, name), getattr(other, name)
            if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
                if not np.array_equal(a, b):
                    return False
            elif a != b:
                return False
        return True

    def __hash__(self):
        return hash((self.preset, self.T, self.log_prob))

    @property
    def T(self) -> int:
        return int(self.x.shape[0])

    @property
    def K(self) -> int:
        return int(self.A.shape[0])

    @property
    def M(self) -> int:
        return int(self.B.shape[1])


@dataclass(frozen=True, kw_only=True)
class HMMLabSnapshot(Snapshot):
    """One step of the lab's run.

    ``t``: symbols read (filter), columns filled (trellis: column index, T for the
    back-track), 0 otherwise. ``alpha``/``scale``/``log_likelihood``: the forward step
    (filter). ``log_delta``/``backpointer``: the trellis column. ``bw``: the Baum-Welch
    snapshot and ``restart`` its restart (0-based); ``learn``: where that restart stands
    (:class:`LearnState`, the one source of every text about it).
    """

    stage: str
    data: RunData
    t: int = 0
    alpha: np.ndarray | None = None
    scale: float = 1.0
    log_likelihood: float = 0.0
    log_delta: np.ndarray | None = None
    backpointer: np.ndarray | None = None
    bw: BaumWelchSnapshot | None = None
    restart: int = 0
    learn: "LearnState | None" = None


@dataclass(frozen=True)
class LearnState:
    """Where one Baum-Welch restart stands after an iteration, against the true model.

    ``status``: "start" (iteration 0), "climbing" (more iterations follow), "converged" (the
    last iteration gained less than ``TOL``) or "limit" (stopped by the iteration limit while
    still gaining). ``gain``: what the last iteration added to log P(x) (None at iteration 0).
    ``perm``: the learned state matched to each true state; ``off_A``/``off_B``: the largest
    difference between a learned probability (states matched) and the true one.
    """

    status: str
    gain: float | None
    max_iter: int
    perm: tuple[int, ...]
    off_A: float
    off_B: float

    @property
    def off(self) -> float:
        return max(self.off_A, self.off_B)

    @property
    def found_truth(self) -> bool:
        return self.off <= TRUTH_WITHIN

    @property
    def switched(self) -> bool:
        return list(self.perm) != sorted(self.perm)

    @property
    def finished(self) -> bool:
        return self.status in ("converged", "limit")


def check_matrices(matrices: dict, K: int, M: int) -> CategoricalHMM:
    """A model from the editor's matrices; the engine's ValueError names what is wrong."""
    if not isinstance(matrices, dict):
        raise ValueError("the editable model must be a mapping of startprob, transmat and emissionprob")
    model = CategoricalHMM(K, M, matrices.get("startprob"), matrices.get("transmat"), matrices.get("emissionprob"))
    model._given()  # validation: rows summing to one, shapes, NaN
    if any(matrices.get(k) is None for k in ("startprob", "transmat", "emissionprob")):
        raise ValueError("the editable model needs startprob, transmat and emissionprob")
    return model


def first_switch_window(path: np.ndarray, window: int = WINDOW) -> int:
    """Start of a trellis window around the Viterbi path's first change of state (0 if none)."""
    changes = np.flatnonzero(np.diff(path) != 0)
    T = path.shape[0]
    if changes.size == 0:
        return max(T - window, 0)
    return int(min(max(changes[0] + 1 - window // 2, 0), max(T - window, 0)))


def error_rate(states: np.ndarray, truth: np.ndarray) -> float:
    return float(np.mean(states != truth))


def build_data(preset: str, n_steps: int, n_train: int, restarts: int, seed: int, matrices: dict | None) -> RunData:
    """The model, the sequence shown, its truth and the whole-sequence results of one run."""
    if preset == "letters":
        pi, A, B = letter_model()
        letters = letter_sequence()[LETTER_TRAIN:]
        start = int(np.random.default_rng(seed).integers(0, max(len(letters) - n_steps - n_train, 1)))
        x = letters[start:start + n_steps]
        x_train = letters[start:start + max(n_steps, n_train)]
        vowel = np.array([LETTERS[s] in VOWELS for s in x])
        z = np.where(vowel, 0, 1)
        model = CategoricalHMM(2, 26, pi, A, B)
        names, symbols, truth, focus = ("vowel", "consonant"), LETTERS, "the letter class", 0
    else:
        if preset == "custom":
            model = check_matrices(matrices or casino_matrices(), 2, 6)
        elif preset == "casino":
            model = dishonest_casino()
        else:
            raise ValueError(f"unknown preset {preset!r}; choose one of {[p for p, _ in PRESETS]}")
        x_train, z_train = model.sample(max(n_steps, n_train), random_state=seed)
        x, z = x_train[:n_steps], z_train[:n_steps]
        names, symbols, truth, focus = ("fair", "loaded"), FACES, "the die used", 1
    filtered = model.filter(x)
    smoothed = model.smooth(x)
    columns = list(model.viterbi_steps(x))
    log_prob, path = columns[-1].log_prob, columns[-1].path
    log_delta = np.array([c.log_delta for c in columns[:-1]])
    psi = np.array([c.backpointer for c in columns[:-1]])
    errors = {
        "filtering": error_rate(filtered.argmax(axis=1), z),
        "smoothing": error_rate(smoothed.argmax(axis=1), z),
        "Viterbi": error_rate(path, z),
    }
    return RunData(
        preset=preset, state_names=names, symbol_names=symbols, truth_name=truth,
        pi=np.asarray(model._model()[0]), A=np.asarray(model._model()[1]), B=np.asarray(model._model()[2]),
        x=x, z=z, x_train=x_train, focus=focus, filtered=filtered, smoothed=smoothed, path=path,
        log_prob=float(log_prob), log_likelihood=float(model.score(x)),
        log_likelihood_train=float(model.score(x_train)),
        log_delta=log_delta, psi=psi, errors=errors, n_restarts=int(restarts),
        window=first_switch_window(path),
    )


def run_steps(preset: str, n_steps: int, n_train: int, restarts: int, max_iter: int, bw_start: str, seed: int,
            matrices: dict | None):
    """The lab's generator: filter, decode, trellis and learn (see the module docstring)."""
    data = build_data(preset, n_steps, n_train, restarts, seed, matrices)
    model = CategoricalHMM(data.K, data.M, data.pi, data.A, data.B)
    step = 0
    for snap in model.filter_steps(data.x):
        yield HMMLabSnapshot(step=step, phase="filtering", stage="filter", data=data, t=snap.t, alpha=snap.alpha,
                             scale=snap.scale, log_likelihood=snap.log_likelihood)
        step += 1
    yield HMMLabSnapshot(step=step, phase="smoothing and Viterbi", stage="decode", data=data, t=data.T,
                         log_likelihood=data.log_likelihood)
    step += 1
    for snap in model.viterbi_steps(data.x):
        phase = "Viterbi back-track" if snap.path is not None else "Viterbi trellis"
        yield HMMLabSnapshot(step=step, phase=phase, stage="trellis", data=data, t=snap.t,
                             log_delta=snap.log_delta, backpointer=snap.backpointer)
        step += 1
    for r in range(restarts):
        given = {}
        if r == 0 and bw_start == "editor" and matrices and data.M == 6:  # the edited dice as the first start
            check_matrices(matrices, 2, 6)
            given = {key: matrices[key] for key in ("startprob", "transmat", "emissionprob")}
        learner = CategoricalHMM(data.K, data.M, tol=TOL, max_iter=max_iter, random_state=seed * 100 + r, **given)
        previous = None
        for snap in learner.fit_steps(data.x_train):
            gain = None if previous is None else snap.log_likelihood - previous
            previous = snap.log_likelihood
            yield HMMLabSnapshot(step=step, phase=f"Baum-Welch, restart {r + 1}", stage="learn", data=data,
                                 bw=snap, restart=r, log_likelihood=snap.log_likelihood,
                                 learn=learn_state(snap, gain, max_iter, data))
            step += 1


def learn_state(bw: BaumWelchSnapshot, gain: float | None, max_iter: int, data: RunData) -> LearnState:
    """Where a restart stands after ``bw`` (see :class:`LearnState`)."""
    if not bw.converged:
        status = "start" if gain is None else "climbing"
    elif gain is not None and gain < TOL:
        status = "converged"
    else:
        status = "limit" if bw.step >= max_iter else "converged"
    perm, off_A, off_B = match_states(bw.transmat, bw.emissionprob, data.A, data.B)
    return LearnState(status=status, gain=gain, max_iter=int(max_iter), perm=perm, off_A=off_A, off_B=off_B)


def match_states(A: np.ndarray, B: np.ndarray, true_A: np.ndarray, true_B: np.ndarray):
    """(perm, off_A, off_B): the order of the learned states that brings (A, B) closest to the
    true ones (label switching: EM may name the states either way), measured by the largest
    difference of one probability; ``perm[k]`` is the learned state matched to true state k.
    Up to 6 states every order is tried; beyond, the states keep their order."""
    A, B = np.asarray(A, dtype=float), np.asarray(B, dtype=float)
    K = true_A.shape[0]
    orders = itertools.permutations(range(K)) if K <= 6 else [tuple(range(K))]
    best = None
    for p in orders:
        idx = list(p)
        off_A = float(np.abs(A[np.ix_(idx, idx)] - true_A).max())
        off_B = float(np.abs(B[idx] - true_B).max())
        if best is None or max(off_A, off_B) < max(best[1], best[2]):
            best = (tuple(int(i) for i in p), off_A, off_B)
    return best
