"""Training a cascade: discrete AdaBoost stages on faces and mined non-faces, as a live generator.

Stage j is a discrete AdaBoost classifier of decision stumps h_t(x) = +1 if
p_t (x_{f_t} - theta_t) > 0 else -1 on the variance-normalised Haar features. Each round
picks the stump of least weighted error err (each feature column sorted once per stage; the
error of every threshold follows from a cumulative sum of the signed weights in that order,
D_k = sum_{i <= k} w_(i) y_(i), as err_k = min(W_- + D_k, W_+ - D_k)), sets
alpha = log((1 - err) / err), multiplies the weights of the misclassified patches by
exp(alpha) and renormalises. The stage threshold Theta_j is lowered until the stage detection
rate reaches ``stage_detection_rate``; stumps are added until also its false-positive rate is
at most ``stage_false_positive_rate``. Stage j trains on all faces and on the non-face windows
that every earlier stage wrongly accepts (:mod:`smlengine.cascade.miner`).

References: P. Viola and M. Jones, "Robust real-time face detection", IJCV 57(2), 2004;
discrete AdaBoost as in Hastie, Tibshirani & Friedman, ESL, Algorithm 10.1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._base import Snapshot, check_random_state, frozen_array
from ..haar import haar_features, integral_image
from .miner import NegativeMiner, patch_stats

__all__ = ["CascadeSnapshot", "train_steps", "MAX_STAGE_TABLE"]

_WORK_PER_YIELD = 3_000_000  # array elements touched between two snapshots (~10-30 ms)
#: most candidate features x training patches of one stage (its tables cost 9 bytes per entry)
MAX_STAGE_TABLE = 200_000_000


@dataclass(frozen=True, kw_only=True, eq=False)
class CascadeSnapshot(Snapshot):
    """State of cascade training after one event.

    ``phase`` names what happens ('start', 'mining', 'features', 'sorting', 'boosting',
    'feature', 'stage', 'done', 'stopped'); ``progress`` is the fraction done of the current
    long phase (mining, features, sorting, boosting), else None.

    Attributes
    ----------
    event : str
        'start' (step 0), 'progress' (inside a long phase), 'feature' (a stump was added),
        'stage' (a stage is finished), 'done' (training ended normally) or 'stopped'
        (the negatives ran out; see ``message``).
    message : str
        One plain sentence describing the event (shown in the GUI's status line).
    stage : int
        0-based index of the stage being trained (for 'stage': the stage just finished).
    n_stages : int
        Number of finished stages.
    feature_index : int
        For 'feature': 0-based index of the stump within its stage; else -1.
    feature_rects : ndarray (4, 4) int or None
        For 'feature': the blocks (row, col, height, width) of its Haar window (zero rows
        are padding).
    feature_weights : ndarray (4,) or None
        +1 grey block, -1 white block, 0 padding.
    feature_type : str
        '2h', '2v', '3h', '3v' or '4' for 'feature' events, else ''.
    feature_threshold : float or None
        theta of the stump (on the variance-normalised feature); None unless ``event`` is 'feature'.
    feature_polarity : int
        +1: face if x > theta; -1: face if x < theta.
    alpha : float or None
        log((1 - err) / err) of the stump; None unless ``event`` is 'feature'.
    weighted_error : float or None
        err of the stump under the current AdaBoost weights; None unless ``event`` is 'feature'.
    stage_n_features : int
        Stumps in the current stage so far.
    stage_threshold : float or None
        Theta_j, the lowered threshold of the stage score so far (None before the first stump).
    stage_detection_rate, stage_false_positive_rate : float or None
        DR(f_j) and FPR(f_j) of the stage so far, on the faces that passed the earlier
        stages and on this stage's negatives (None before the first stump).
    detection_rate, false_positive_rate : float
        Cumulative products over the finished stages times the current stage's rates.
    negatives_mined : int
        Negatives collected for the current stage (so far, while mining).
    windows_scanned : int
        Windows the current cascade looked at to find them.
    mined_acceptance : float
        Accepted / scanned while mining: a direct estimate of the FPR of the earlier stages
        on the face-free images (None before any scan).
    n_positives, n_negatives : int
        Training patches of the current stage.
    done : bool
        True for the last snapshot.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.cascade import Cascade
    >>> rng = np.random.default_rng(0)
    >>> faces = rng.uniform(0.0, 1.0, (60, 8, 8))
    >>> faces[:, :4] += 0.12
    >>> faces[:, :, :2] += 0.1
    >>> background = rng.uniform(0.0, 1.0, (300, 8, 8))
    >>> model = Cascade(window=8, feature_types=("2v", "2h"), n_candidate_features=40, negatives_per_stage=100,
    ...                 max_stages=2, random_state=0)
    >>> snaps = list(model.fit_steps(faces, background))
    >>> sorted(set(s.event for s in snaps))
    ['done', 'feature', 'progress', 'stage', 'start']
    >>> [(s.stage, s.feature_type, round(s.weighted_error, 3)) for s in snaps if s.event == "feature"][:3]
    [(0, '2v', 0.247), (0, '2h', 0.27), (0, '2v', 0.333)]
    >>> last = snaps[-1]
    >>> last.done, last.n_stages, round(last.false_positive_rate, 3)
    (True, 2, 0.207)
    """

    event: str
    message: str = ""
    stage: int = 0
    n_stages: int = 0
    feature_index: int = -1
    feature_rects: np.ndarray | None = None
    feature_weights: np.ndarray | None = None
    feature_type: str = ""
    feature_threshold: float | None = None
    feature_polarity: int = 0
    alpha: float | None = None
    weighted_error: float | None = None
    stage_n_features: int = 0
    stage_threshold: float | None = None
    stage_detection_rate: float | None = None
    stage_false_positive_rate: float | None = None
    detection_rate: float = 1.0
    false_positive_rate: float = 1.0
    negatives_mined: int = 0
    windows_scanned: int = 0
    mined_acceptance: float | None = None
    n_positives: int = 0
    n_negatives: int = 0
    done: bool = False


def train_steps(model, faces, negative_source):
    """Train ``model`` (a :class:`~smlengine.cascade.Cascade`) stage after stage, yielding a
    :class:`CascadeSnapshot` for every event; :meth:`Cascade.fit_steps` is this generator."""
    all_features = model._validate()
    rng = check_random_state(model.random_state)
    faces = model._check_patches(faces, "faces")
    if faces.shape[0] < 2:
        raise ValueError(f"faces needs at least 2 patches, got {faces.shape[0]}")
    miner = NegativeMiner(negative_source, model.window)
    P = faces.shape[0]
    quota = int(model.negatives_per_stage)
    n_cand = len(all_features) if model.n_candidate_features is None else min(int(model.n_candidate_features),
                                                                              len(all_features))
    if n_cand * (P + quota) > MAX_STAGE_TABLE:
        raise ValueError(
            f"a stage would tabulate {n_cand:,} features on {P + quota:,} patches, more than {MAX_STAGE_TABLE:,} "
            "values: lower n_candidate_features or negatives_per_stage")
    # stop when the source yields less than a tenth of the quota (or of all its windows)
    min_negatives = max(1, min(quota // 10, miner.total_windows // 10))
    model.stages_ = []
    model._stage_objs = []
    model.n_stages_ = 0
    model.stage_detection_rate_ = np.zeros(0)
    model.stage_false_positive_rate_ = np.zeros(0)
    model.detection_rate_ = 1.0
    model.false_positive_rate_ = 1.0
    model.stop_reason_ = ""
    face_ii = integral_image(faces)
    face_mean, face_sigma = patch_stats(faces)
    step = 0
    cum_dr, cum_fpr = 1.0, 1.0
    yield CascadeSnapshot(step=0, phase="start", event="start", n_positives=P,
                          message=f"Ready to train on {P} faces; {miner.describe()}.")
    for frac in miner.prepare():
        step += 1
        yield CascadeSnapshot(step=step, phase="preparing", progress=frac, event="progress", n_positives=P,
                              message="Building the image pyramids of the face-free photos.")
    stop_reason = f"reached max_stages = {model.max_stages}"
    stopped = False
    for j in range(int(model.max_stages)):
        # faces that reach stage j (the stage DR is measured on them)
        reach = np.ones(P, dtype=bool)
        if j:
            reach = model._eval_patches(faces)[0] >= j
        # ---- mining
        mined = None
        for item in miner.mine(model, quota, rng):
            if isinstance(item, tuple):
                found, scanned, frac = item
                step += 1
                yield CascadeSnapshot(
                    step=step, phase="mining", progress=frac, event="progress", stage=j, n_stages=j,
                    negatives_mined=found, windows_scanned=scanned,
                    mined_acceptance=found / scanned if scanned else None,
                    detection_rate=cum_dr, false_positive_rate=cum_fpr, n_positives=P,
                    message=f"Stage {j + 1}: mining non-faces that stages 1-{j} accept "
                    f"({found} found in {scanned:,} windows).")
            else:
                mined = item
        negs, scanned, accepted = mined
        N = negs.shape[0]
        if N < min_negatives:
            stopped = True
            stop_reason = (
                f"the face-free images ran out: only {N} of {scanned:,} windows pass the {j} stage(s) "
                f"trained so far, but stage {j + 1} needs at least {min_negatives} non-faces. "
                f"Training stops with {j} stage(s); add more face-free photos to go further."
            )
            break
        # ---- features of faces and negatives on this stage's candidate family
        if model.n_candidate_features is not None and model.n_candidate_features < len(all_features):
            cand = np.sort(rng.choice(len(all_features), size=int(model.n_candidate_features), replace=False))
            fs = all_features.subset(cand)
        else:
            fs = all_features
        neg_mean, neg_sigma = patch_stats(negs)
        X_ii = np.concatenate([face_ii, integral_image(negs)])
        mean = np.concatenate([face_mean, neg_mean])
        sigma = np.concatenate([face_sigma, neg_sigma])
        y = np.concatenate([np.ones(P), -np.ones(N)])
        n = P + N
        F = len(fs)
        XT = np.empty((F, n), dtype=np.float32)  # one row per feature: sorted rows stay contiguous
        chunk = max(1, _WORK_PER_YIELD // (9 * n))
        for a in range(0, F, chunk):
            b = min(F, a + chunk)
            sub = fs.subset(np.arange(a, b))
            raw = haar_features(X_ii, sub)
            XT[a:b] = ((raw - mean[:, None] * sub.signed_area) / sigma[:, None]).T
            step += 1
            yield CascadeSnapshot(step=step, phase="features", progress=b / F, event="progress", stage=j,
                                  n_stages=j, negatives_mined=N, windows_scanned=scanned, n_positives=P,
                                  n_negatives=N, detection_rate=cum_dr, false_positive_rate=cum_fpr,
                                  message=f"Stage {j + 1}: Haar features of {n} patches ({b}/{F}).")
        # ---- sort every feature column once
        order = np.empty((F, n), dtype=np.int32)
        valid = np.empty((F, n - 1), dtype=bool)  # a threshold between sorted k-1 and k exists
        chunk = max(1, _WORK_PER_YIELD // (4 * n))
        for a in range(0, F, chunk):
            b = min(F, a + chunk)
            o = np.argsort(XT[a:b], axis=1, kind="stable")
            order[a:b] = o
            sv = np.take_along_axis(XT[a:b], o, axis=1)
            valid[a:b] = sv[:, 1:] > sv[:, :-1]
            step += 1
            yield CascadeSnapshot(step=step, phase="sorting", progress=b / F, event="progress", stage=j,
                                  n_stages=j, negatives_mined=N, windows_scanned=scanned, n_positives=P,
                                  n_negatives=N, detection_rate=cum_dr, false_positive_rate=cum_fpr,
                                  message=f"Stage {j + 1}: sorting feature columns ({b}/{F}).")
        # ---- AdaBoost rounds
        w = np.where(y > 0, 0.5 / P, 0.5 / N)
        chosen, thetas, pols, alphas, votes = [], [], [], [], []
        stage_dr = stage_fpr = None  # undefined before the stage's first stump
        theta_stage = None
        chunk = max(1, _WORK_PER_YIELD // (3 * n))
        reach_pos = np.flatnonzero(reach)
        for t in range(int(model.max_features_per_stage)):
            w /= w.sum()
            wy = w * y
            Wp, Wn = w[y > 0].sum(), w[y < 0].sum()
            best = (np.inf, -1, -1, 0)
            for a in range(0, F, chunk):
                b = min(F, a + chunk)
                D = np.cumsum(wy[order[a:b, :-1]], axis=1)
                e_plus = Wn + D
                e_minus = Wp - D
                e = np.minimum(e_plus, e_minus)
                e[~valid[a:b]] = np.inf
                k = np.argmin(e, axis=1)
                ek = e[np.arange(b - a), k]
                f = int(np.argmin(ek))
                if ek[f] < best[0]:
                    pol = 1 if e_plus[f, k[f]] <= e_minus[f, k[f]] else -1
                    best = (float(ek[f]), a + f, int(k[f]), pol)
                if F > chunk:
                    step += 1
                    yield CascadeSnapshot(
                        step=step, phase="boosting", progress=b / F, event="progress", stage=j, n_stages=j,
                        stage_n_features=t, negatives_mined=N, windows_scanned=scanned, n_positives=P,
                        n_negatives=N, stage_detection_rate=stage_dr, stage_false_positive_rate=stage_fpr,
                        stage_threshold=theta_stage, detection_rate=cum_dr * (1.0 if t == 0 else stage_dr),
                        false_positive_rate=cum_fpr * (1.0 if t == 0 else stage_fpr),
                        message=f"Stage {j + 1}: searching the best stump {t + 1} over {F} features.")
            err, f, k, pol = best
            if f < 0 or err >= 0.5 - 1e-12:
                if t == 0:
                    stopped = True
                    stop_reason = (f"no Haar feature separates faces from the stage-{j + 1} non-faces "
                                   "better than chance; training stops")
                break
            # the chosen column again in float64, as detection computes it, so that theta
            # (the midpoint of the split) sorts every training patch exactly as at test time
            one = fs.subset([f])
            col = (haar_features(X_ii, one)[:, 0] - mean * one.signed_area[0]) / sigma
            theta = 0.5 * (col[order[f, k]] + col[order[f, k + 1]])
            h = np.where(pol * (col - theta) > 0, 1.0, -1.0)
            err = float(w[h != y].sum())  # exact, free of the cumulative sum's rounding
            err_c = min(max(err, 1e-10), 1 - 1e-10)
            alpha = float(np.log((1 - err_c) / err_c))
            w *= np.exp(alpha * (h != y))
            votes.append(h > 0)
            chosen.append(f)
            thetas.append(theta)
            pols.append(pol)
            alphas.append(alpha)
            a_arr = np.asarray(alphas)
            score = np.column_stack(votes) @ (2.0 * a_arr) - a_arr.sum()  # as in StageEvaluator.scores
            # lower the stage threshold until DR >= target on the faces reaching the stage;
            # the tiny slack keeps a face sitting exactly on it accepted despite rounding
            sp = np.sort(score[reach_pos])[::-1]
            need = int(np.ceil(float(model.stage_detection_rate) * sp.size - 1e-9))
            theta_stage = float(sp[max(need, 1) - 1]) - 1e-9 * (1.0 + float(a_arr.sum()))
            stage_dr = float(np.mean(sp >= theta_stage))
            stage_fpr = float(np.mean(score[P:] >= theta_stage))
            step += 1
            yield CascadeSnapshot(
                step=step, phase="feature", event="feature", stage=j, n_stages=j, feature_index=t,
                feature_rects=frozen_array(fs.rects[f]), feature_weights=frozen_array(fs.weights[f]),
                feature_type=fs.type_names[fs.kind[f]], feature_threshold=theta, feature_polarity=pol,
                alpha=alpha, weighted_error=err, stage_n_features=t + 1, stage_threshold=theta_stage,
                stage_detection_rate=stage_dr, stage_false_positive_rate=stage_fpr,
                detection_rate=cum_dr * stage_dr, false_positive_rate=cum_fpr * stage_fpr,
                negatives_mined=N, windows_scanned=scanned, n_positives=P, n_negatives=N,
                mined_acceptance=accepted / scanned if scanned else None,
                message=f"Stage {j + 1}, stump {t + 1}: {fs.type_names[fs.kind[f]]} feature, err = {err:.3f}, "
                f"alpha = {alpha:.2f}; stage DR = {stage_dr:.3f}, FPR = {stage_fpr:.3f}.")
            if stage_fpr <= model.stage_false_positive_rate:
                break
        if stopped:
            break
        del XT, order, valid
        sel = fs.subset(np.asarray(chosen))
        cum_dr *= stage_dr
        cum_fpr *= stage_fpr
        model._append_stage(sel, thetas, pols, alphas, theta_stage, stage_dr, stage_fpr, N, scanned)
        step += 1
        yield CascadeSnapshot(
            step=step, phase="stage", event="stage", stage=j, n_stages=j + 1, stage_n_features=len(chosen),
            stage_threshold=theta_stage, stage_detection_rate=stage_dr, stage_false_positive_rate=stage_fpr,
            detection_rate=cum_dr, false_positive_rate=cum_fpr, negatives_mined=N, windows_scanned=scanned,
            mined_acceptance=accepted / scanned if scanned else None, n_positives=P, n_negatives=N,
            message=f"Stage {j + 1} done: {len(chosen)} stumps, DR = {stage_dr:.3f}, FPR = {stage_fpr:.3f}; "
            f"cascade DR = {cum_dr:.3f}, FPR = {cum_fpr:.2e}.")
        if cum_fpr <= model.target_false_positive_rate:
            stop_reason = (f"the cascade's false-positive rate {cum_fpr:.2e} reached the target "
                           f"{model.target_false_positive_rate:.0e}")
            break
    model.stop_reason_ = stop_reason
    step += 1
    yield CascadeSnapshot(
        step=step, phase="stopped" if stopped else "done", event="stopped" if stopped else "done",
        stage=max(model.n_stages_ - 1, 0), n_stages=model.n_stages_, detection_rate=cum_dr,
        false_positive_rate=cum_fpr, n_positives=P, done=True,
        message=f"Training {'stopped' if stopped else 'finished'}: {stop_reason}.")
