"""Build the shipped lessons (``resources/lessons/<lab>.smllesson``) from the scenarios below.

Each step is set up in the real lab, headless: parameters (the rest keep their defaults), the
seed, an optional edit of the lab's data, then the run to the step's starting point; the lab's
session state at that moment is the step's state. Every reveal is then played in the app and
must reach its condition, or the lesson is not written.

    QT_QPA_PLATFORM=offscreen python resources/lessons/build_lessons.py [lab ...]
"""

from __future__ import annotations

import copy
import json
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("SMLLAB_CONFIG_DIR", tempfile.mkdtemp(prefix="smllab-lessons-"))

from app.lessons.format import (  # noqa: E402
    Lesson,
    LessonStep,
    check_controls,
    lab_parameters,
    parse_lesson,
    parse_question,
    parse_reveal,
    save_lesson,
)
from app.session import parameter_problem  # noqa: E402


def step(prompt, *, params=None, seed=0, run=0, edit=None, question=None, choices=(), correct=None, reveal=None,
         answer="", locked=(), hidden=(), notes="", view=""):
    return dict(prompt=prompt, params=params or {}, seed=seed, run=run, edit=edit, question=question,
                choices=list(choices), correct=correct, reveal=reveal, answer=answer, locked=list(locked),
                hidden=list(hidden), notes=notes, view=view)


# ---------------------------------------------------------------------------- the scenarios
def _move_one_point_across(lab):
    """Take the +1 point nearest to the −1 class's centre and put it deep inside the −1 class."""
    import numpy as np

    X, y = lab.canvas.X.copy(), lab.canvas.y.copy()
    neg = X[y < 0].mean(axis=0)
    pos_idx = np.flatnonzero(y > 0)
    i = pos_idx[np.argmin(((X[pos_idx] - neg) ** 2).sum(axis=1))]
    X[i] = neg
    lab.set_user_data({"points": X.tolist(), "labels": y.tolist(), "test": []})


LESSONS: dict[str, dict] = {}


def lesson(lab_id, title, introduction, steps, view=""):
    """A lab's lesson; ``view``: the plot tab every step shows unless the step names its own (a
    lab with tabs shows the tab each question is about)."""
    for s in steps:
        s["view"] = s["view"] or view
    LESSONS[lab_id] = dict(title=title, introduction=introduction, steps=steps)


# ---- the labs' lessons (one call per lab) ----
PERCEPTRON_LOCKS = ["classifier", "mode", "dataset", "n_samples", "noise", "balance", "test_fraction"]
lesson("classifiers", "The perceptron: it converges — unless it cannot",
       "Rosenblatt's perceptron corrects one misclassified point at a time: z ← z + α yᵢ x̃ᵢ.", [
    step("Two separate clouds of points. Each step takes one misclassified point and turns the line towards it.",
         question="Will the perceptron reach a line with no mistakes?",
         choices=["Yes, after finitely many updates", "Only approximately: a few mistakes stay", "No, it never stops"],
         correct=0, reveal={"until": {"metric": "engine.n_mistakes", "op": "<=", "value": 0}, "budget": 2000},
         answer="Yes. On linearly separable data the perceptron stops after finitely many updates "
                "(Novikoff: at most (R/γ)² of them, R the data's radius, γ the margin).",
         locked=PERCEPTRON_LOCKS, hidden=["max_epochs"],
         notes="Point at the mistakes curve: it is not monotone, yet it reaches 0."),
    step("The same data with a learning rate ten times smaller, α = 0.1.",
         params={"learning_rate": 0.1},
         question="How many updates will it need now?",
         choices=["About ten times more", "Exactly as many", "Fewer"], correct=1,
         reveal={"until": {"metric": "engine.n_mistakes", "op": "<=", "value": 0}, "budget": 2000},
         answer="Exactly as many. Starting from z = 0, α only scales z, and the sign of ⟨z, x̃⟩ — which "
                "decides every mistake — does not change.",
         locked=PERCEPTRON_LOCKS, hidden=["max_epochs"],
         notes="Compare the step counter with step 1. The line is the same at every step; only |z| differs."),
    step("One +1 point moved into the −1 cloud: no line separates the classes any more.",
         params={"max_epochs": 60}, edit=_move_one_point_across,
         question="What will the perceptron do now?",
         choices=["Settle with one mistake", "Keep turning until the epoch limit stops it",
                  "Find a line with no mistakes"], correct=1,
         reveal={"until": "finished", "budget": 5000},
         answer="It never settles: the moved point pulls the line one way, its neighbours pull it back. "
                "Only the epoch limit ends the run, with mistakes left.",
         locked=PERCEPTRON_LOCKS + ["max_epochs"],
         notes="Scrub back through the timeline: the line cycles between a few positions."),
    step("The same non-separable data, now with logistic regression (Newton's method on the log-loss).",
         params={"classifier": "logistic", "max_epochs": 60}, edit=_move_one_point_across,
         question="Will logistic regression settle on this data?",
         choices=["Yes, in a few iterations", "No, it cycles like the perceptron"], correct=0,
         reveal={"until": "finished", "budget": 500},
         answer="Yes. The log-loss is convex and smooth: Newton's method converges in a handful of steps. "
                "The moved point stays on the wrong side — the best a line can do.",
         locked=["classifier", "dataset", "n_samples", "noise", "balance", "test_fraction"],
         notes="Logistic regression minimises a cost that every point contributes to; the perceptron "
               "only reacts to mistakes."),
], view="Training")

BOOST_LOCKS = ["method", "dataset", "n_samples", "noise", "balance", "test_fraction"]
lesson("trees", "AdaBoost: weights on the mistakes, test error after training error 0",
       "AdaBoost adds one decision stump per round and reweights the points: the mistakes of this round "
       "weigh more in the next.", [
    step("Two rings of points, half of them held out as a test set. Round 1 fits one stump (one axis, one "
         "threshold) to the weighted points.",
         question="After the round, what share of the total weight will the misclassified points hold?",
         choices=["The same share as before", "Exactly one half", "Almost all of it"], correct=1,
         reveal={"run_to": 1},
         answer="Exactly one half: each mistake's weight is multiplied by (1 − err)/err, which makes the next "
                "round's best stump no better than chance on the old one.",
         locked=BOOST_LOCKS, notes="The maths panel shows the share before and after the reweighting."),
    step("One stump is a poor classifier for rings. Boosting keeps adding stumps, each trained on the "
         "reweighted points.",
         run=1,
         question="Can a sum of axis-parallel stumps classify every training point correctly?",
         choices=["Yes, after enough rounds", "No, rings need curved boundaries"], correct=0,
         reveal={"until": {"metric": "train_error", "op": "<=", "value": 0}, "budget": 400},
         answer="Yes: the weighted vote of stumps is a staircase boundary that can fit the rings on the "
                "training points.",
         locked=BOOST_LOCKS, notes="Watch the staircase boundary in the decision map."),
    step("The training error is 0 now. We keep boosting.",
         run=21,
         question="What will the test error do if we keep adding stumps?",
         choices=["Rise: the model overfits", "Stay where it is", "Keep falling"], correct=2,
         reveal={"until": {"metric": "test_error", "op": "<=", "value": 0.019}, "budget": 200},
         answer="It keeps falling although every training point is already right: later rounds widen the "
                "margins y·F(x) of the training points, and wider margins generalise better.",
         locked=BOOST_LOCKS,
         notes="Schapire, Freund, Bartlett & Lee (1998): the margin explanation. The curves panel shows both "
               "errors."),
    step("The training error is bounded by Π 2√(err_m(1 − err_m)), the product over the rounds so far.",
         run=28,
         question="Once the training error is 0, what does the bound do?",
         choices=["It stops at its current value", "It keeps falling towards 0", "It rises again"], correct=1,
         reveal={"until": {"metric": "engine.bound", "op": "<=", "value": 0.01}, "budget": 300},
         answer="It keeps falling exponentially: every round with err_m < ½ multiplies it by a factor below 1. "
                "It bounds the exponential loss, which keeps shrinking while the margins grow.",
         locked=BOOST_LOCKS),
])


def _components(d):
    """Rebuild the pictures from d eigen-digits (the Compression view's d)."""
    def edit(lab):
        lab.set_user_data({**lab.user_data(), "d": d})
    return edit


PCA_LOCKS = ["digit", "n_power", "tol_exp", "max_iter"]
lesson("pca", "PCA: how many eigen-digits make a 3?",
       "Every 8 × 8 picture of a 3 is the mean 3 plus a weighted sum of eigen-digits, the eigenvectors of the "
       "pixels' covariance matrix, ordered by how much variance they carry.", [
    step("Top: handwritten 3s. Below each: the mean 3 plus d = 2 eigen-digits, the best two-dimensional "
         "summary of all 183 pictures.",
         edit=_components(2), view="Compression",
         question="With d = 2, how much of the 3s' variance is kept?",
         choices=["About 10 %", "About 35 %", "About 70 %", "About 95 %"], correct=1,
         answer="36 %: the first two eigen-digits carry 22 % and 15 % of the variance. The rebuilt pictures "
                "are blurred 3s: the shared shape, not the writer's hand.",
         locked=PCA_LOCKS, notes="The 3s are 64-dimensional; d counts the directions kept."),
    step("The same 3s rebuilt from d = 6 eigen-digits.",
         edit=_components(6), view="Compression",
         question="How many eigen-digits until every 3 here is recognisable?",
         choices=["Already with 6", "About 15", "About 40", "All 64"], correct=0,
         answer="About six: 65 % of the variance is kept and every picture reads as a 3. The details of "
                "each hand (the last 35 %) need many more components.",
         locked=PCA_LOCKS),
    step("d = 15 eigen-digits.",
         edit=_components(15), view="Compression",
         question="What share of the variance do 15 of the 64 components keep?",
         choices=["About 50 %", "About 75 %", "About 90 %", "About 99 %"], correct=2,
         answer="89 %: a quarter of the dimensions keeps nine tenths of the variance. The scree plot "
                "(eigenvalues against their rank) shows why: it falls fast, then flattens.",
         locked=PCA_LOCKS, notes="Open the Scores view to see the 3s in the plane of the first two components."),
    step("The eigen-digits are found one at a time by the power method: v ← Bv / ‖Bv‖, with B the "
         "covariance matrix.",
         edit=_components(6), view="Power method",
         question="How many iterations until the first eigen-digit is found (to 10⁻⁸)?",
         choices=["About 5", "About 50", "About 5,000"], correct=1,
         reveal={"until": {"metric": "converged", "op": ">=", "value": 1}, "budget": 300},
         answer="About 50: each iteration shrinks the angle to the eigenvector by λ₂/λ₁ = 0.68, and "
                "0.68⁵⁰ ≈ 4·10⁻⁹.",
         locked=PCA_LOCKS),
    step("After deflation (removing the components found), the power method looks for the fourth "
         "eigen-digit. Here the ratio λ₅/λ₄ is 0.83.",
         edit=_components(6), view="Power method", run=182,
         question="Will the fourth eigen-digit take more or fewer iterations than the first?",
         choices=["Fewer", "About as many", "More"], correct=2,
         reveal={"until": {"metric": "converged", "op": ">=", "value": 1}, "budget": 400},
         answer="More: the closer λ₅/λ₄ is to 1, the slower the power method. 0.83ᵗ needs about twice as many "
                "iterations as 0.68ᵗ to reach the same precision.",
         locked=PCA_LOCKS),
])


CHAIN_LOCKS = ["graph", "teleport", "start", "tol", "max_iter"]
lesson("pagerank", "PageRank: a chain that oscillates, and the teleport that fixes it",
       "PageRank is the stationary distribution of a random surfer: the power method P ← Pᵀ·P repeats one "
       "step of the surfer's chain until nothing changes.", [
    step("A periodic chain of two states: the surfer always moves to the other state, so it can only come back "
         "after an even number of moves. All the probability starts on state 1; no teleport (α = 0).",
         params={"graph": "periodic", "teleport": 0.0, "start": "first"},
         question="Will the power method settle on a distribution?",
         choices=["Yes, after a few iterations", "No, the probability keeps moving"], correct=1,
         reveal={"run_to": 20},
         answer="No: all the probability jumps from state to state at every iteration and ‖Pₜ₊₁ − Pₜ‖₁ stays "
                "at 2. A periodic chain has a stationary distribution (½, ½), but the power method never "
                "reaches it.",
         locked=CHAIN_LOCKS, notes="Step back and forth: the bars swap sides every iteration."),
    step("The same chain with teleport α = 0.15: at each move the surfer jumps to a random state with "
         "probability α.",
         params={"graph": "periodic", "teleport": 0.15, "start": "first"},
         question="Will the power method settle now?",
         choices=["Yes", "No, it still oscillates", "Only if we start from the uniform distribution"], correct=0,
         reveal={"until": {"metric": "change", "op": "<=", "value": 0.1}, "budget": 100},
         answer="Yes: teleporting makes every state reachable from every state in one move, so the chain is "
                "aperiodic; the oscillation dies out like (1 − α)ᵗ = 0.85ᵗ.",
         locked=CHAIN_LOCKS, notes="The 'bound' in the maths panel is (1 − α)ᵗ."),
    step("Another cure: no teleport, but every state gets a self-loop (the surfer may stay put).",
         params={"graph": "periodic-self-loops", "teleport": 0.0, "start": "first"},
         question="Does a self-loop also stop the oscillation?",
         choices=["Yes", "No, only teleport does"], correct=0,
         reveal={"until": {"metric": "change", "op": "<=", "value": 0.01}, "budget": 100},
         answer="Yes: a self-loop makes a return possible after any number of moves, so the chain is aperiodic "
                "and the power method converges (more slowly than with teleport).",
         locked=CHAIN_LOCKS),
    step("A reducible chain: from one group of states the surfer can enter a second group, but never come "
         "back. No teleport; all the probability starts on the first state.",
         params={"graph": "reducible", "teleport": 0.0, "start": "first"},
         question="Where does the probability end up?",
         choices=["Spread over all states", "All of it in the group that cannot be left",
                  "It never settles"], correct=1,
         reveal={"until": {"metric": "converged", "op": ">=", "value": 1}, "budget": 100},
         answer="In the closed group: the states the surfer can leave for good get probability 0. Which limit "
                "we get can depend on the start — teleport removes that ambiguity too.",
         locked=CHAIN_LOCKS),
    step("The real web graph: 530 pages of Python's documentation and their links, α = 0.15.",
         params={"graph": "python-docs", "teleport": 0.15},
         question="How many power-method iterations until the ranks change by less than 10⁻¹⁰?",
         choices=["About 5", "About 30", "About 300", "About 3,000"], correct=1,
         reveal={"until": {"metric": "converged", "op": ">=", "value": 1}, "budget": 600},
         answer="About 30 (27 here): each iteration shrinks the error by at least the factor 1 − α = 0.85, "
                "whatever the size of the web.",
         locked=["graph", "teleport", "tol", "max_iter"],
         notes="Hover over a node to see its page. The top ranks are the index pages."),
])


FIT_LOCKS = ["truth", "n_points", "noise", "test_fraction", "basis", "method", "size"]
lesson("regression", "Regression: a wiggly fit, and the penalties that tame it",
       "Thirteen noisy training points of a sine (the other seven are held out for testing). We fit "
       "polynomials in the Legendre basis, of growing degree.", [
    step("Least squares with a cubic (degree 3): the curve that minimises the squared training error.",
         params={"method": "lstsq", "size": 3},
         question="How will the error on the held-out points compare with the training error?",
         choices=["About the same", "A few times larger", "A hundred times larger"], correct=1,
         reveal={"run_to": 1},
         answer="A few times larger: training MSE 0.011, test MSE 0.039. The cubic follows the sine, not the "
                "noise.",
         locked=FIT_LOCKS, view="Fit"),
    step("Degree 9: ten coefficients for thirteen points.",
         params={"method": "lstsq", "size": 9},
         question="The training error will fall. What will the test error do?",
         choices=["Fall too", "Stay about the same", "Grow a lot"], correct=2,
         reveal={"run_to": 1},
         answer="It grows about fifteen-fold (0.55) while the training error falls to 0.002: the curve bends "
                "to follow the noise of the training points. That is overfitting.",
         locked=FIT_LOCKS, view="Fit"),
    step("Degree 12: thirteen coefficients for thirteen points.",
         params={"method": "lstsq", "size": 12},
         question="What will the training error be?",
         choices=["Small but above 0", "Exactly 0", "Larger than for degree 9"], correct=1,
         reveal={"until": {"metric": "train_mse", "op": "<=", "value": 1e-9}, "budget": 5},
         answer="0: with as many coefficients as points the polynomial interpolates every training point — and "
                "its test error is in the thousands.",
         locked=FIT_LOCKS, view="Fit", notes="One more coefficient and least squares has no unique solution."),
    step("Still degree 12, now with ridge regression: minimise the squared error + λ‖w‖², λ = 0.1.",
         params={"method": "ridge", "size": 12, "log_alpha": -1.0},
         question="What will the test error be now?",
         choices=["Still in the thousands", "Below 1", "Exactly 0"], correct=1,
         reveal={"run_to": 1},
         answer="About 0.25: the penalty keeps the coefficients small, so the curve cannot swing between the "
                "points. The training error rises a little (0.003): bias traded for variance.",
         locked=FIT_LOCKS + ["log_alpha"], view="Fit"),
    step("The lasso penalises λ‖w‖₁ instead (λ = 0.01), fitted by coordinate descent: one coefficient at a "
         "time, sweep after sweep.",
         params={"method": "lasso", "size": 12, "log_alpha": -2.0},
         question="Will the lasso beat ridge's test error of 0.25?",
         choices=["Yes", "No"], correct=0,
         reveal={"until": {"metric": "converged", "op": ">=", "value": 1}, "budget": 3000},
         answer="Yes: test MSE 0.07 after 32 sweeps. The L1 penalty sets coefficients exactly to zero, so the "
                "lasso keeps a few low-degree terms and drops the rest.",
         locked=FIT_LOCKS + ["log_alpha"], view="Fit",
         notes="The Paths view shows each coefficient against λ: the lasso's paths hit zero one by one."),
])


MIX_LOCKS = ["data", "n_points", "K", "covariance_type", "init", "floor"]
lesson("mixtures", "Gaussian mixtures: EM against k-means",
       "EM fits a mixture of Gaussians: the E-step gives each point a responsibility for each component, the "
       "M-step refits means, covariances and weights. k-means runs beside it on the same start.", [
    step("Three stretched clusters, 400 points. EM with full covariances (view EM) and k-means (shown here) "
         "start from the same k-means++ means.", view="k-means limit",
         question="Which of the two will stop first?",
         choices=["EM", "k-means", "Both after the same number of iterations"], correct=0,
         reveal={"until": {"metric": "km.converged", "op": ">=", "value": 1}, "budget": 500},
         answer="EM, after 9 iterations; k-means needs 30. k-means only knows round clusters of equal size, so "
                "on stretched clusters its boundaries keep moving — and end up cutting across them.",
         locked=MIX_LOCKS),
    step("The same data, but each component may only be a round Gaussian (spherical covariance σ²I).",
         params={"covariance_type": "spherical"}, view="EM",
         question="Compared with full covariances (log-likelihood −1258), the best fit will be…",
         choices=["About as good", "Clearly worse", "Better"], correct=1,
         reveal={"until": {"metric": "em.converged", "op": ">=", "value": 1}, "budget": 500},
         answer="Clearly worse: the log-likelihood only reaches about −1595. Round components cannot follow "
                "stretched clusters — the same limitation k-means has.",
         locked=MIX_LOCKS),
    step("Full covariances again, but the means start on random data points instead of k-means++.",
         params={"init": "random"}, view="EM",
         question="Can the log-likelihood go down from one EM iteration to the next?",
         choices=["Yes, sometimes", "Never"], correct=1,
         reveal={"until": {"metric": "em.converged", "op": ">=", "value": 1}, "budget": 500},
         answer="Never: each E-step makes the lower bound touch the log-likelihood, each M-step maximises the "
                "bound. Here it climbs for 45 iterations to the same −1258 as before — a worse start costs time.",
         locked=MIX_LOCKS, notes="Point at the log-likelihood curve: it only rises."),
    step("Six components for three clusters.",
         params={"K": 6}, view="EM",
         question="Will six components reach a higher log-likelihood than three?",
         choices=["Yes", "No", "The same"], correct=0,
         reveal={"until": {"metric": "em.converged", "op": ">=", "value": 1}, "budget": 500},
         answer="Yes, a little (−1241 against −1258): more components never fit the training data worse. "
                "That is why the number of clusters is chosen with a penalty (BIC) or held-out data, not by "
                "the likelihood alone — see the view 'How many clusters'.",
         locked=MIX_LOCKS),
])


REJ_LOCKS = ["method", "target", "M", "scale", "per_step"]
GIBBS_LOCKS = ["method", "picture", "size", "sigma", "beta", "init", "sweeps", "gibbs_burn"]
lesson("sampling", "Sampling: rejection's price, and what a Gibbs sampler's prior does",
       "Two ways to draw from a distribution we can only evaluate: rejection sampling under an envelope "
       "M·q(x), and a Gibbs sampler that denoises a picture one pixel at a time.", [
    step("Rejection sampling: propose x from q, accept it with probability p(x) / (M·q(x)). Here M = 2.5.",
         params={"method": "rejection", "M": 2.5},
         question="What fraction of the proposals will be accepted?",
         choices=["About 10 %", "About 40 %", "About 90 %"], correct=1,
         reveal={"until": {"metric": "n_proposed", "op": ">=", "value": 2000}, "budget": 1000},
         answer="About 1/M = 40 % (39 % of 2,000 here): the accepted points fill the area under p, which is "
                "1/M of the area under the envelope.",
         locked=REJ_LOCKS, view="Rejection"),
    step("The same target with a loose envelope: M = 10.",
         params={"method": "rejection", "M": 10.0},
         question="What fraction will be accepted now?",
         choices=["About 10 %", "About 40 %", "The same as before"], correct=0,
         reveal={"until": {"metric": "n_proposed", "op": ">=", "value": 2000}, "budget": 1000},
         answer="About 1/M = 10 %: the samples are still exact, but each costs ten proposals. In high "
                "dimensions the smallest valid M grows exponentially — rejection sampling stops being usable.",
         locked=REJ_LOCKS, view="Rejection"),
    step("A black-and-white horse with Gaussian noise (σ = 0.6). The Gibbs sampler redraws each pixel given "
         "its four neighbours (Potts prior, coupling β = 1) and its noisy value. Rounding each noisy pixel to "
         "the nearest level gets 20 % of them wrong.",
         params={"method": "gibbs", "beta": 1.0},
         question="After 60 sweeps, what share of pixels will the sampler get wrong?",
         choices=["Still about 20 %", "About 5 %", "None"], correct=1,
         reveal={"until": "finished", "budget": 200},
         answer="About 4.5 % for the last sample, 1.7 % for the most frequent label after burn-in: the prior "
                "says neighbours agree, which cleans isolated noisy pixels.",
         locked=GIBBS_LOCKS, view="Gibbs (Potts)"),
    step("The same picture with β = 0: no coupling between neighbours, each pixel only listens to its own "
         "noisy value.",
         params={"method": "gibbs", "beta": 0.0},
         question="How will the sampler do without the prior?",
         choices=["As well as with β = 1", "About as badly as rounding (20 %)", "Worse than rounding"],
         correct=2,
         reveal={"until": "finished", "budget": 200},
         answer="Worse than rounding: 27 % of the last sample is wrong. Without the prior each pixel is drawn "
                "from its own posterior, so uncertain pixels come out wrong at random; the most frequent label "
                "only matches rounding (20 %).",
         locked=GIBBS_LOCKS, view="Gibbs (Potts)"),
    step("Strong coupling, β = 3, starting from a picture with one label everywhere.",
         params={"method": "gibbs", "beta": 3.0},
         question="What will a strong prior do?",
         choices=["Clean the picture even better", "Keep the sampler stuck near its start"], correct=1,
         reveal={"until": "finished", "budget": 200},
         answer="It freezes: 33 % of the pixels stay wrong — the horse never appears. A pixel that disagrees "
                "with all four neighbours is almost never accepted, so the chain cannot leave its start in 60 "
                "sweeps: the sampler mixes too slowly.",
         locked=GIBBS_LOCKS, view="Gibbs (Potts)", notes="Compare the energy curve with step 3: flat from the start."),
])


HMM_LOCKS = ["preset", "n_steps", "n_train", "restarts", "max_iter", "bw_start"]
lesson("hmm", "Hidden Markov models: the dishonest casino",
       "A casino switches now and then between a fair die and a loaded one that favours sixes. We see 300 "
       "rolls, never the die.", [
    step("The forward algorithm reads the rolls one at a time and updates P(fair or loaded | rolls so far).",
         question="Under the casino's model, will the 300 rolls be more or less probable than under a fair die "
                  "alone (log-probability 300·ln(1/6) = −537.5)?",
         choices=["More probable", "Less probable", "Equally probable"], correct=0,
         reveal={"run_to": 300},
         answer="More probable: log P = −517.8. The model with a loaded die explains the runs of sixes that a "
                "fair die makes unlikely.",
         locked=HMM_LOCKS, notes="The filter's scale factors multiply to P(rolls): the log-likelihood is their sum."),
    step("The whole sequence is known now. Viterbi finds the single most probable sequence of dice.",
         run=300,
         question="Will the Viterbi path (lower band) find every loaded stretch of the truth (upper band)?",
         choices=["Yes, every one", "Some of them, not all", "None: the rolls are too noisy"],
         correct=1, reveal={"run_to": 301},
         answer="Some: it finds three loaded stretches and misses others of about twenty rolls; 28 % of the "
                "rolls get the wrong die (smoothing: 22 %). The single most probable path switches dice only "
                "when a stretch of rolls pays for two unlikely switches.",
         locked=HMM_LOCKS),
    step("Baum–Welch learns the model from 2,000 rolls alone, starting from a random guess: an E-step "
         "(forward–backward) and an M-step (re-estimate the probabilities) per iteration, at most 300 of them.",
         run=603, view="Learning ▸ Log-likelihood per iteration",
         question="Can the log-likelihood of the rolls go down from one iteration to the next?",
         choices=["Yes, sometimes", "Never"], correct=1,
         reveal={"until": {"metric": "restart", "op": ">=", "value": 1}, "budget": 400},
         answer="Never: Baum–Welch is EM, and every EM iteration raises the likelihood or leaves it unchanged. "
                "Yet this start crawls along a plateau: after 300 iterations it is at −3507.39, still climbing, "
                "0.62 off the truth.",
         locked=HMM_LOCKS),
    step("Two more restarts from other random guesses. The dashed line is the log-likelihood of the true "
         "model that rolled the dice.",
         run=904, view="Learning ▸ Log-likelihood per iteration",
         question="Will every restart end at the same log-likelihood?",
         choices=["Yes, EM always finds the maximum", "No, they can end at different values"], correct=1,
         reveal={"until": "finished", "budget": 700},
         answer="No: the second also stops at the limit, at −3498.85, still climbing; the third converges after "
                "259 iterations at −3478.74, above the true model's −3483.15, every probability within 0.02 of "
                "the truth: it found it. Where EM ends depends on the start: hence several restarts, keeping "
                "the best.",
         locked=HMM_LOCKS, notes="The caption under the plot compares each restart with the truth."),
], view="Filtering")


NGRAM_LOCKS = ["corpus", "level", "n", "smoothing", "k", "discount", "temperature", "top_k", "length"]
lesson("ngrams", "N-grams: from word salad to plagiarism",
       "An n-gram model writes text one token at a time, drawing each from the counts of what followed the "
       "previous N − 1 tokens in Macbeth (23,499 words).", [
    step("N = 1: every word is drawn by its frequency in the play alone, whatever came before.",
         params={"n": 1, "length": 100},
         question="What is the longest stretch of the generated text that also appears in Macbeth?",
         choices=["One to three words", "About ten words", "Whole lines"], correct=0,
         reveal={"until": "finished", "budget": 300},
         answer="Three words, by chance: the unigram model knows which words are common, nothing about order.",
         locked=NGRAM_LOCKS),
    step("N = 3: each word depends on the two before it.",
         params={"n": 3, "length": 100},
         question="How long a stretch will it copy from the play now?",
         choices=["Still about three words", "About eight words", "Whole speeches"], correct=1,
         reveal={"until": "finished", "budget": 300},
         answer="Eight words: locally the text reads like Shakespeare, but it wanders from topic to topic every "
                "few words.",
         locked=NGRAM_LOCKS),
    step("N = 5: each word depends on the four before it.",
         params={"n": 5, "length": 100},
         question="What will N = 5 write?",
         choices=["Better new sentences", "Long pieces of the play itself"], correct=1,
         reveal={"until": "finished", "budget": 300},
         answer="Pieces of the play: 14 words in a row are copied, and the last word had probability 1. Most "
                "four-word contexts occur once in 23,499 words, so only one word can follow: the model "
                "memorises instead of generalising.",
         locked=NGRAM_LOCKS, notes="This is the sparsity problem that smoothing (Kneser–Ney) addresses."),
    step("Back to N = 3, but at temperature 0: always take the most probable next word.",
         params={"n": 3, "length": 100, "temperature": 0.0},
         question="What happens when the model always picks its favourite word?",
         choices=["The best text so far", "It gets stuck repeating itself"], correct=1,
         reveal={"until": "finished", "budget": 300},
         answer="It loops: 'and yet, by the name of' over and over. The most probable continuation of a context "
                "leads back to the same context. Sampling (temperature > 0) is what keeps generated text moving.",
         locked=NGRAM_LOCKS),
    step("Characters instead of words: a 5-gram over letters, spaces and punctuation (37 symbols).",
         params={"n": 5, "level": "char", "length": 300},
         question="Will a model of letters write real English words?",
         choices=["Only real words", "Mostly real words, and some invented ones", "Random letters"], correct=1,
         reveal={"until": "finished", "budget": 600},
         answer="Mostly real words, plus inventions such as 'expediments' and 'passingle': four letters of "
                "context are enough for spelling, not for meaning.",
         locked=NGRAM_LOCKS),
], view="Generated text")


SEG_LOCKS = ["image", "resolution", "method", "K", "window", "histograms", "bins", "features", "init", "max_iter"]
lesson("segmentation", "Segmentation: colour alone, or the texture around each pixel",
       "Segmenting a photo is clustering its pixels. What each pixel is described by — its colour, or the "
       "histograms of the window around it — decides what the clusters can find.", [
    step("The photo is a mosaic of four textures. k-means with K = 4 on each pixel's colour alone.",
         params={"method": "kmeans_colour"},
         question="Will each of the four segments be one of the four textures?",
         choices=["Yes", "No: segments follow colours, not textures"], correct=1,
         reveal={"until": {"metric": "engine.converged", "op": ">=", "value": 1}, "budget": 300},
         answer="No: k-means on colour puts pixels of similar colour together wherever they are — the bricks "
                "split into brick and mortar, and the mortar's colour turns up inside the other textures.",
         locked=SEG_LOCKS),
    step("Each pixel described instead by the histograms of grey levels and texture codes (LBP) in the "
         "15 × 15 window around it; k-means with K = 4 on those histograms.",
         params={"method": "kmeans_hist"},
         question="What changes compared with colour alone?",
         choices=["Nothing", "Regions of the same texture hold together, with smoother borders"], correct=1,
         reveal={"until": {"metric": "engine.converged", "op": ">=", "value": 1}, "budget": 300},
         answer="The segments become the four textures: neighbouring pixels share most of their window, so "
                "their histograms are alike. The borders are smooth, and blurred by the window's width.",
         locked=SEG_LOCKS),
    step("The model of the course: EM for a mixture of multinomials over the window histograms.",
         params={"method": "multinomial"},
         question="How many EM iterations until the log-likelihood stops improving?",
         choices=["About 10", "About 100", "About 1,000"], correct=0,
         reveal={"until": {"metric": "engine.converged", "op": ">=", "value": 1}, "budget": 300},
         answer="About ten (13 here): the histograms hold thousands of counts each, so the responsibilities "
                "are nearly 0 or 1 from the start and EM behaves like k-means.",
         locked=SEG_LOCKS),
    step("EM for a Gaussian mixture on the colours (four full-covariance Gaussians in Lab space).",
         params={"method": "gmm"},
         question="Compared with k-means on colours (30 iterations), EM on colours will need…",
         choices=["Fewer iterations", "About as many", "Many more"], correct=2,
         reveal={"until": {"metric": "engine.converged", "op": ">=", "value": 1}, "budget": 600},
         answer="Many more (188 here): overlapping Gaussians share pixels through soft responsibilities, and "
                "EM creeps along flat stretches of the likelihood.",
         locked=SEG_LOCKS),
], view="Segmentation")


FACE_LOCKS = ["mode", "image", "cascade", "n_stages", "scale_factor", "step", "min_neighbors"]
lesson("faces", "Face detection: a cascade that says no quickly",
       "The detector slides a small window over the photo at 14 scales: 218,560 windows. Each stage of the "
       "cascade is a boosted sum of Haar features; a window must pass every stage to count as a face.", [
    step("Only the first stage of the cascade.",
         params={"n_stages": 1},
         question="How many of the 218,560 windows will pass the first stage alone?",
         choices=["A handful", "About a hundred", "About a hundred thousand"], correct=2,
         reveal={"until": {"metric": "done", "op": ">=", "value": 1}, "budget": 300},
         answer="99,318 — nearly half. A stage is trained to keep almost every face, "
                "so on its own it raises many false alarms; its job is to reject the obvious non-faces cheaply.",
         locked=FACE_LOCKS),
    step("Five stages.",
         params={"n_stages": 5},
         question="How many windows will survive five stages?",
         choices=["About 90,000", "About 9,000", "About 90"], correct=1,
         reveal={"until": {"metric": "done", "op": ">=", "value": 1}, "budget": 300},
         answer="8,906: each stage removes a large share of what the previous ones let through, while almost "
                "no face is lost. Most windows are rejected after one or two stages — that is why the cascade "
                "is fast.",
         locked=FACE_LOCKS),
    step("All 19 stages, and every surviving window drawn as its own box (no neighbour vote).",
         params={"min_neighbors": 0},
         question="How many windows survive all 19 stages?",
         choices=["Exactly one", "About seventy", "About a thousand"], correct=1,
         reveal={"until": {"metric": "done", "op": ">=", "value": 1}, "budget": 300},
         answer="72 windows, in 24 groups of neighbouring windows (15 boxes drawn): a face is found by many "
                "overlapping windows at neighbouring positions and scales, false alarms mostly alone.",
         locked=FACE_LOCKS),
    step("The usual rule: a box must be backed by more than four overlapping windows (min. neighbours = 4).",
         question="How many boxes remain?",
         choices=["None", "One", "Fifteen"], correct=1,
         reveal={"until": {"metric": "done", "op": ">=", "value": 1}, "budget": 300},
         answer="One, on the astronaut's face: real faces are detected by many neighbouring windows, lone "
                "false alarms are not.",
         locked=FACE_LOCKS),
], view="Detection")


COIN_LOCKS = ["method", "prior", "source", "p", "flips", "die", "die_alpha"]
DECISION_LOCKS = ["method", "n_classes", "prior1", "prior2", "loss_12", "loss_21", "loss_13", "loss_23", "loss_31",
                  "loss_32", "points"]


def _three_heads(lab):
    """The user's coin: three flips, all heads."""
    lab.set_user_data({"clicks": [1, 1, 1], "classes": lab.classes})


lesson("bayes", "Bayes: from prior to posterior, and the rule that decides",
       "Bayes' rule p(θ | x) ∝ p(x | θ) p(θ) turns a prior into a posterior one observation at a time; the "
       "posterior then decides, and the best possible rule still errs where the classes overlap.", [
    step("A coin of unknown θ = P(heads), a uniform prior Beta(1, 1). The coin comes up heads three times "
         "in a row.",
         params={"method": "coin", "source": "clicks"}, edit=_three_heads,
         question="After three heads, what do the maximum-likelihood estimate and the posterior mean say?",
         choices=["Both say θ = 1", "ML says θ = 1, the posterior mean 0.8", "Both say θ = 0.75"], correct=1,
         reveal={"run_to": 3},
         answer="ML k/n = 3/3 = 1: the coin never shows tails. The posterior Beta(4, 1) has mean 4/5 = 0.8, and "
                "its 95 % interval [0.40, 0.99] says three flips prove little. With a uniform prior the MAP "
                "equals ML (1).",
         locked=COIN_LOCKS, view="Coin and dice"),
    step("A strong and wrong prior, Beta(18, 2): as sure that θ ≈ 0.9 as twenty flips would make it. The "
         "coin's true θ is 0.3; 100 flips.",
         params={"method": "coin", "prior": "wrong"},
         question="Where will the posterior mean be after 100 flips?",
         choices=["About 0.3: the data win", "About 0.36: the prior still pulls", "About 0.9: the prior wins"],
         correct=1, reveal={"until": "finished", "budget": 200},
         answer="About 0.36: (18 + k) / (20 + 100) with k = 25 heads here. The prior counts as twenty flips, so "
                "it takes hundreds of flips to wash it out; its evidence bar (log p(flips)) is far below the "
                "uniform prior's: the data call it wrong.",
         locked=COIN_LOCKS, view="Coin and dice"),
    step("Two Gaussian classes with different covariances, equal priors. The map shades P(y | x); the black "
         "line is where the MAP rule changes its decision.",
         params={"method": "decision"},
         question="What shape is the boundary of the Bayes classifier here?",
         choices=["A straight line", "A curve: quadratic in x"], correct=1,
         reveal={"run_to": 1},
         answer="A curve: log p(x | 1) − log p(x | 0) is quadratic in x when the covariances differ (QDA). "
                "Only equal covariances make it a line (LDA).",
         locked=DECISION_LOCKS, view="Decision"),
    step("QDA, LDA and naive Bayes fitted from a sample that grows to 800 points; the right-hand plot shows "
         "each rule's true risk against the Bayes risk.",
         params={"method": "decision"},
         question="With enough points, which rule reaches the Bayes risk?",
         choices=["All three", "QDA only: LDA's line cannot bend", "None of them"], correct=1,
         reveal={"until": "finished", "budget": 100},
         answer="QDA's risk falls to the Bayes risk (0.0536 against 0.0535 at n = 800); LDA keeps a straight "
                "line and stays above it (0.063) whatever n. Naive Bayes comes close (0.056) because the "
                "classes are nearly axis-aligned.",
         locked=DECISION_LOCKS, view="Decision"),
    step("The loss matrix: deciding class 2 when the truth is class 1 now costs 5, L(1, 2) = 5; the other "
         "error still costs 1.",
         params={"method": "decision", "loss_12": 5.0},
         question="Where does the boundary move?",
         choices=["Into class 2's side: class 1 is decided more often", "Into class 1's side",
                  "Nowhere: the posteriors did not change"], correct=0,
         reveal={"run_to": 1},
         answer="Into class 2's side: the rule decides argmin Σ L(j, k) P(j | x), so class 1 is chosen as soon as "
                "5 P(1 | x) > P(2 | x). The Bayes risk, now an expected cost, grows from 0.054 to 0.136.",
         locked=DECISION_LOCKS, view="Decision"),
])


GP_LOCKS = ["kernel", "truth", "n_points", "sample_noise", "restarts"]
lesson("gp", "Gaussian processes: the evidence picks the length-scale",
       "Twelve noisy points of sin(2πx). A Gaussian process prior f ~ GP(0, k) meets them; the posterior mean and "
       "its ±2σ band follow in closed form (one Cholesky factorisation). The evidence log p(y | X, θ) then "
       "chooses the kernel's hyper-parameters and the noise.", [
    step("An RBF kernel with length-scale ℓ = 0.03, noise σ² = 0.01. Between the points the mean falls back to 0 "
         "and the band opens to the prior's width: with so short a length-scale the points tell nothing about "
         "their neighbourhood. Play: the optimiser climbs the evidence over ℓ, the variance v and σ².",
         question="Where will the length-scale end up?",
         choices=["Shorter still: ℓ < 0.03", "Longer: ℓ about 0.25", "Very long: ℓ > 5, nearly a flat line"],
         correct=1, reveal={"until": "finished", "budget": 100},
         answer="ℓ = 0.25 (v = 0.64, σ² = 0.0073) after 11 steps: the evidence rises from −9.6 to 0.78 and the "
                "mean now follows the sine across the gaps.",
         locked=GP_LOCKS, view="Posterior"),
    step("The same points, now starting from ℓ = 3: far too smooth, the mean is almost a straight line. The map "
         "shows the evidence over (ℓ, σ²) at the step's variance; the star is the optimiser.",
         params={"length_scale": 3.0},
         question="Where will the optimiser end?",
         choices=["At the same top: ℓ about 0.25", "At ℓ = 3: the evidence is flat there",
                  "At a longer ℓ still"], correct=0, reveal={"until": "finished", "budget": 100},
         answer="At the same top (log evidence 0.78), after 25 steps from −77. Too long a length-scale fits the "
                "points badly (the data-fit term); too short a one fits them all but pays in complexity "
                "(−½ log|K + σ²I|): the evidence trades one against the other.",
         locked=GP_LOCKS + ["length_scale"], view="Evidence"),
    step("ℓ = 0.03 again, now with two more ascents from random starts (within two decades of the parameters).",
         params={"restarts": 2},
         question="Will all three ascents reach the same top?",
         choices=["Yes: the evidence has one maximum", "No: one of them stops at a lower maximum"], correct=1,
         reveal={"until": "finished", "budget": 200},
         answer="No: the third climbs to ℓ ≈ 0.0003 and σ² ≈ 0.15 — every point explained as noise — a local "
                "maximum with log evidence −11.4. The optimiser keeps the best of the three (0.78).",
         locked=GP_LOCKS, view="Evidence"),
    step("A periodic kernel, k = v exp(−2 sin²(π|x − x′|/p) / ℓ²), with period p = 1 and ℓ = 1.",
         params={"kernel": "periodic", "length_scale": 1.0, "period": 1.0},
         question="Will its evidence beat the RBF's best, 0.78?",
         choices=["Yes: the sine repeats, and this kernel knows it", "No: it has one more hyper-parameter"],
         correct=0, reveal={"until": "finished", "budget": 100},
         answer="Yes: 3.19, with period 0.98. A prior that already says the function repeats explains the points "
                "with less freedom to spare.",
         locked=GP_LOCKS + ["period"], view="Posterior"),
    step("A linear kernel, k = v x x′ + c: Bayesian linear regression, a straight line with a prior on its slope "
         "and intercept.",
         params={"kernel": "linear"},
         question="How will its best evidence compare with the RBF's 0.78?",
         choices=["About the same", "Far below"], correct=1, reveal={"until": "finished", "budget": 100},
         answer="Far below: −7.6, with σ² = 0.16. A line cannot follow a sine, so the noise has to explain what "
                "the line misses — and the evidence says so. The Kernels tab compares the five kernels side by "
                "side.",
         locked=GP_LOCKS, view="Posterior"),
])


TOPICS_LOCKS = ["corpus", "n_topics", "alpha", "eta", "n_sweeps", "burn_in"]
lesson("topics", "Topic models: LDA learned by Gibbs sampling",
       "Latent Dirichlet allocation: each document mixes K topics, each topic is a distribution over words. "
       "Collapsed Gibbs sampling redraws every word's topic from (n_dk + α)(n_kw + η)/(n_k + Vη).", [
    step("Six topics on passages of six plays. Every word starts in a random topic; one sweep redraws the topic "
         "of every word in turn.",
         question="What will the log joint log p(w, z) do over the first 20 sweeps?",
         choices=["Climb steeply, then level off", "Stay about where it starts", "Fall steadily"], correct=0,
         reveal={"run_to": 20},
         answer="It climbs from −41,887 to −31,198 in five sweeps and −30,087 by sweep 20, then levels off: "
                "words gather in topics with the words they appear with.",
         locked=TOPICS_LOCKS, notes="The top words turn from noise into names and themes of the plays."),
    step("Burn-in ends at sweep 50; from there on the estimates of φ and θ are averaged.",
         run=50,
         question="After burn-in, what share of the words will still change topic in each sweep?",
         choices=["None: the sampler has settled on one assignment", "A steady few percent: it keeps sampling",
                  "About half of them"], correct=1, reveal={"run_to": 100},
         answer="About 8 % every sweep: a Gibbs sampler never stops, it wanders around the posterior; the "
                "estimates average over that wandering.",
         locked=TOPICS_LOCKS),
    step("The same passages with α = 2 instead of 0.1: a flatter prior on each passage's topic mixture θ_d.",
         params={"alpha": 2.0}, view="Documents",
         question="Will each passage mix more topics, or fewer?",
         choices=["More: a larger α smooths every θ_d", "Fewer: the topics get sharper", "The same"], correct=0,
         reveal={"run_to": 100},
         answer="More: a passage's largest topic share falls from 0.42 on average to 0.34, and it has 4.0 topics "
                "above 10 % instead of 3.6. A small α asks for documents of few topics.",
         locked=TOPICS_LOCKS, hidden=[]),
    step("A corpus drawn from the model itself: ten known topics, the rows and columns of a 5 × 5 grid of words.",
         params={"corpus": "bars", "n_topics": 10, "alpha": 0.5}, view="Synthetic truth",
         question="Will the learned topics come close to the true bars within 100 sweeps?",
         choices=["Yes, most of them", "No: the sampler cannot know which topic is which"], correct=0,
         reveal={"run_to": 100},
         answer="Yes: the mean distance to the matched true topics falls from 0.78 to 0.17. Their numbers are "
                "arbitrary (label switching): they are matched with the truth before comparing.",
         locked=TOPICS_LOCKS),
], view="Topics emerging")


SPECTRAL_LOCKS = ["method", "n_points", "n_classes", "stretch", "tilt", "dataset", "noise", "k", "affinity",
                  "normalized", "kpca_data", "kernel", "degree"]
lesson("spectral", "Spectral methods: the direction that separates, and the moons k-means cannot find",
       "The direction of most variance need not separate classes: Fisher's maximises wᵀS_B w / wᵀS_W w. "
       "Clusters that are not round defeat k-means, yet fall apart along the smallest eigenvectors of a graph "
       "Laplacian.", [
    step("Two elongated classes side by side. The orange line is PCA's first direction (most variance), the "
         "green one Fisher's; the grey line turns by 3° a step, with its Rayleigh quotient J(θ) on the right.",
         params={"method": "fisher"},
         question="Along which direction do the two classes' projections overlap?",
         choices=["Along PCA's: the variance lies within the classes", "Along Fisher's",
                  "Along neither: both separate them"], correct=0,
         reveal={"until": "finished", "budget": 200},
         answer="Along PCA's: J = 0.014 there, the histograms lie on top of each other. Fisher's direction "
                "(111°) reaches the maximum J = 6.2 and its histograms stand apart; the grey curve of J(θ) "
                "peaks exactly at its mark.",
         locked=SPECTRAL_LOCKS, view="Fisher vs PCA"),
    step("Two moons, 300 points. Right: k-means with k = 2 on the same points. Left: the RBF affinity graph "
         "(γ = 30) and the clusters from the two smallest eigenvectors of its normalised Laplacian.",
         params={"method": "spectral"},
         question="Will k-means find the two moons?",
         choices=["Yes: two clusters, two moons", "No: it cuts across both moons"], correct=1,
         reveal={"until": "finished", "budget": 200},
         answer="No: k-means draws a straight border between two centres, so it cuts each moon (adjusted Rand "
                "index 0.24). The graph joins only near points; its second eigenvector (λ₂ = 0.0003) is "
                "almost constant on each moon, and spectral clustering recovers them exactly.",
         locked=SPECTRAL_LOCKS, view="Spectral clustering"),
    step("The same moons with γ = 1000: each point now joins only its very nearest neighbours.",
         params={"method": "spectral", "gamma": 1000.0},
         question="What will the Laplacian's smallest eigenvalues show?",
         choices=["A clear gap after the second", "Many eigenvalues near 0: no gap at k = 2"], correct=1,
         reveal={"run_to": 1},
         answer="Many near 0 (10⁻⁷, 10⁻⁶ ...): the graph has fallen into nearly separate pieces, each giving an "
                "eigenvalue near 0, so the eigenvectors no longer single out the two moons.",
         locked=SPECTRAL_LOCKS, view="Spectral clustering"),
    step("Two rings. No line in the plane separates them. Kernel PCA with the RBF kernel (γ = 10): PCA of the "
         "centred kernel matrix.",
         params={"method": "kpca"},
         question="Can a single threshold on one kernel component separate the rings?",
         choices=["Yes, one component separates them", "No, the rings stay mixed"], correct=0,
         reveal={"run_to": 0},
         answer="Yes: a threshold on the third component classifies 100 % of the points (the first two trace "
                "the rings' angle). The kernel matrix shows the two blocks of the two rings.",
         locked=SPECTRAL_LOCKS, view="Kernel PCA"),
])


NEURAL_LOCKS = ["dataset", "n_samples", "noise", "balance", "test_fraction", "layers", "units", "activation",
                "optimizer", "learning_rate", "epochs", "batch_size", "alpha"]
lesson("neural", "Neural networks: how many hidden units does a ring need?",
       "A multilayer perceptron h = tanh(W x + b), p(+1 | x) = σ(vᵀh + c) learns by gradient descent on the "
       "cross-entropy, w ← w − η ∇L; backpropagation computes ∇L one layer at a time.", [
    step("Two rings of points: class +1 inside, class −1 around it. A network with two hidden tanh units, "
         "trained by gradient descent (η = 1) for 100 epochs.",
         params={"units": 2, "epochs": 100},
         question="Can two hidden units separate the inner ring from the outer one?",
         choices=["Yes: almost every point right", "No: many points stay wrong"], correct=1,
         reveal={"until": "finished", "budget": 200},
         answer="No: after 100 epochs 44 % of the training points are still wrong (43 % of the test points). "
                "Each unit is a smooth step across a line; two lines make a band or a wedge, never a closed "
                "curve around the inner ring.",
         locked=NEURAL_LOCKS, view="Train"),
    step("Three hidden units, the same data and learning rate.",
         params={"units": 3, "epochs": 150},
         question="Will three units be enough?",
         choices=["Yes: three lines close a triangle around the inner ring", "No: it takes at least eight"],
         correct=0, reveal={"until": {"metric": "train_error", "op": "<=", "value": 0.05}, "budget": 200},
         answer="Yes: by epoch 114 at most 5 % of the training points are wrong (2 % at epoch 150, 1 % of the "
                "test points). Inside the network: each hidden unit's picture is a half-plane, and the "
                "output unit closes the three into a rounded triangle.",
         locked=NEURAL_LOCKS, view="Inside the network"),
    step("Eight units (the default), with a learning rate thirty times larger: η = 30, for 30 epochs.",
         params={"learning_rate": 30.0, "epochs": 30},
         question="What will the loss do?",
         choices=["Fall faster than with η = 1", "Rise above where it started"], correct=1,
         reveal={"until": "finished", "budget": 100},
         answer="It rises: from 0.85 at the start to 17.6 after 30 epochs, and half of the points end up wrong. "
                "Each step jumps across the valley of L instead of down into it: the steps overshoot. With η = 1 "
                "the loss falls to 0.13 in 200 epochs (the Learning rate tab races the two).",
         locked=NEURAL_LOCKS, view="Train"),
    step("Back to η = 1, at the start. Point 1 is a +1 point that the starting network gives p(+1 | x) = 0.30. "
         "Backprop, one step: its forward values, its deltas and the update of one SGD step on this point "
         "alone.",
         edit=lambda lab: lab.choose_point(1),
         question="How much does this one step lower the point's own loss, −log p(+1 | x) = 1.21?",
         choices=["A little: to about 1.1", "A lot: to about 0.14", "Not at all: it rises"], correct=1,
         reveal={"run_to": 0},
         answer="To 0.14: with η = 1 a step on one point alone moves every weight a long way towards fitting it "
                "(the widest edges are the largest updates). That is why stochastic gradient descent takes "
                "small steps and mini-batches: a step for one point is not a step for the others.",
         locked=NEURAL_LOCKS, view="Backprop, one step"),
])


# ---------------------------------------------------------------------------- building
THEORY_LOCKS = ["task", "epsilon", "delta", "samples", "trials", "cls", "n_points", "growth_m", "source", "m_max",
                "bound_trials"]


def _challenge(cls):
    def edit(lab):
        lab.challenge(cls)
    return edit


lesson("theory", "Learning theory: the rectangle game, and the points a class cannot shatter",
       "A hidden rectangle R labels uniform points of the unit square; the learner answers with the tightest "
       "rectangle R′ around the points inside. PAC: err(R′) ≤ ε with probability ≥ 1 − δ once "
       "m ≥ (4/ε) ln(4/δ). Then: which labellings can a class realise, and how many?", [
    step("The game with ε = 0.1, δ = 0.05: thirty samples arrive one by one (● inside R, ✕ outside). R′ grows "
         "inside R, and errs only in the four shaded strips of R around it.",
         question="After the 30 samples, will err(R′) be below ε = 0.1?",
         choices=["Yes", "No: 30 samples are far too few"], correct=0, reveal={"run_to": 30},
         answer="Yes, this time: err(R′) = 0.052 = 0.015 + 0.007 + 0.028 + 0.002, the areas of the strips. "
                "One game proves nothing about the chance of failing, though.",
         locked=THEORY_LOCKS, view="Rectangle game"),
    step("Now 200 trials, each with 30 fresh samples: the histogram collects err(R′), the curve below the "
         "fraction of trials with err > ε.", run=30,
         question="What fraction of the trials will err more than ε = 0.1?",
         choices=["About δ = 5 %", "About 60 %", "None"], correct=1,
         reveal={"until": "finished", "budget": 400},
         answer="59.5 %: m = 30 is far below m₀ = ⌈(4/ε) ln(4/δ)⌉ = 176, and 4 e^(−εm/4) = 1.9 promises nothing.",
         locked=THEORY_LOCKS, view="Rectangle game"),
    step("Each trial now draws m₀ = 176 samples, the bound for ε = 0.1 and δ = 0.05.",
         params={"samples": 176}, run=176,
         question="What fraction of the 200 trials will err more than ε?",
         choices=["At most δ = 5 %", "About 60 %, as before"], correct=0,
         reveal={"until": "finished", "budget": 600},
         answer="None of the 200: 0 % ≤ δ. The bound holds, with room to spare: it is a worst case over every "
                "rectangle and every distribution.",
         locked=THEORY_LOCKS, view="Rectangle game"),
    step("Shatter it: four points in convex position and the half-planes. The lab tries the 2⁴ = 16 labellings "
         "in turn and lights each one a half-plane realises.",
         params={"task": "shatter"}, edit=_challenge("half-planes"),
         question="Will half-planes realise all 16 labellings of these points?",
         choices=["Yes: 4 points are shattered", "No"], correct=1, reveal={"until": "finished", "budget": 100},
         answer="No: 14 of 16. The witness is labelling 5, + − + −: the two diagonals alike, which no line "
                "separates. Any 4 points fail so (Radon): the VC dimension of half-planes is 3.",
         locked=THEORY_LOCKS, view="Shatter it"),
    step("The same game for axis-aligned rectangles, on the diamond.",
         params={"task": "shatter"}, edit=_challenge("rectangles"),
         question="Will rectangles realise all 16 labellings of the diamond?",
         choices=["Yes", "No: the diagonals again"], correct=0, reveal={"until": "finished", "budget": 100},
         answer="Yes, all 16: the diamond is shattered, so the VC dimension of rectangles is at least 4 (and no "
                "5 points are shattered: one of them is inside the box of the others' extremes).",
         locked=THEORY_LOCKS, view="Shatter it"),
    step("Growth: Π(m), the labellings each class realises on m = 1 … 20 random points, on a log scale beside "
         "2^m and Sauer's bound.", params={"task": "growth"},
         question="How many labellings of the 20 points do half-planes realise?",
         choices=["All 2²⁰ = 1,048,576", "m² − m + 2 = 382", "m + 1 = 21"], correct=1,
         reveal={"until": "finished", "budget": 100},
         answer="382 = m² − m + 2: polynomial, as Sauer's lemma says once m > d. Rectangles realise 1,580, "
                "discs 1,351, intervals 211, thresholds 21.",
         locked=THEORY_LOCKS, view="Growth"),
    step("Bounds: a consistent learner over a finite class (rectangles with corners on a 1/20 grid, "
         "|H| = 44,101, VC dimension 4); its measured error against three bounds on ε(m) at δ = 0.05.",
         params={"task": "bounds"},
         question="At m = 1000, which bound will be the tightest?",
         choices=["The finite-class bound", "The VC bound", "The rectangle game's bound"], correct=0,
         reveal={"until": "finished", "budget": 100},
         answer="The finite class: 0.0137, then the rectangle game's 0.0175 and the VC bound 0.089; the measured "
                "(1 − δ) quantile is 0. All bounds fall like 1/m (the VC one like log m / m).",
         locked=THEORY_LOCKS, view="Bounds"),
])


def _wait(predicate, timeout=120.0):
    from app.__main__ import wait_for

    if not wait_for(predicate, timeout):
        raise TimeoutError("the lab did not get there in time")


def _set_up(window, lab_id, spec):
    lab = window.show_lab(lab_id)
    defaults = {name: p.default for name, p in lab.form.params.items()}
    wanted = {**defaults, **spec["params"]}
    for name, value in wanted.items():  # one at a time, as a user would: the lab reacts to each
        if lab.form.value(name) != value:
            lab.form.set_value(name, value)
    if lab.seed != spec["seed"]:
        lab.runbar.seed.setValue(spec["seed"])
    if spec["edit"] is not None:
        spec["edit"](lab)
    lab.start()
    if spec["run"]:
        lab.run_to(spec["run"])
    r = lab.runner
    _wait(lambda: r.error is not None or r.finished or (r.timeline.last is not None
                                                        and r.timeline.last.step >= spec["run"]) and r.settled)
    _wait(lambda: r.settled)
    if r.error:
        raise RuntimeError(f"{lab_id}: the run failed: {r.error}")
    state = copy.deepcopy(lab.session_state())
    if state["step"] != spec["run"]:
        raise RuntimeError(f"{lab_id}: asked for step {spec['run']}, the lab is at {state['step']}")
    return state


def check_scenario(lab_id: str) -> None:
    """Refuse, before any lab is built, a scenario whose lesson would be refused at open: a
    parameter the lab does not have or a value out of its range, a locked or hidden name that is
    no control of the lab (``ValueError`` naming the step)."""
    specs = lab_parameters(lab_id)
    for i, s in enumerate(LESSONS[lab_id]["steps"], start=1):
        where = f"{lab_id} step {i}"
        for name, value in s["params"].items():
            if name not in specs:
                raise ValueError(f"{where}: {name!r} is not a parameter of the lab")
            problem = parameter_problem(specs[name], value)
            if problem:
                raise ValueError(f"{where}: {problem}")
        check_controls(lab_id, tuple(s["locked"]), f"{where}'s locked controls")
        check_controls(lab_id, tuple(s["hidden"]), f"{where}'s hidden controls")


def build(lab_id: str, out: Path) -> list[str]:
    from app.__main__ import _make_app
    from app.main_window import MainWindow

    check_scenario(lab_id)
    _make_app(True)
    spec = LESSONS[lab_id]
    window = MainWindow(restore=False, autosave=False, lab_ids=[lab_id])
    window.resize(1280, 800)
    window.show()
    results = []
    try:
        steps = []
        for i, s in enumerate(spec["steps"], start=1):
            state = _set_up(window, lab_id, s)
            question = None
            if s["question"]:
                raw = {"text": s["question"], "choices": s["choices"]}
                if s["correct"] is not None:
                    raw["correct"] = s["correct"]
                question = parse_question(raw, f"step {i}'s question")
            steps.append(LessonStep(state=state, prompt=s["prompt"], question=question,
                                    reveal=parse_reveal(s["reveal"], f"step {i}'s reveal"), answer=s["answer"],
                                    locked=tuple(s["locked"]), hidden=tuple(s["hidden"]), notes=s["notes"],
                                    view=s["view"]))
        result = Lesson(title=spec["title"], introduction=spec["introduction"], steps=steps)
        parse_lesson(json.loads(json.dumps(result.to_json())))  # the check the file gets when it is opened
        player = window.lessons
        player.start(result)
        for i, st in enumerate(result.steps):
            player.go_to(i)
            _wait(player.arrived)
            if st.reveal is not None:
                player.reveal()
                _wait(player.settled, 300)
                if not player.reveal_met:
                    raise RuntimeError(f"{lab_id} step {i + 1}: {player.result}")
            results.append(f"step {i + 1}: {player.result or 'no reveal'}")
        player.leave()
        save_lesson(out, result)
    finally:
        window.shutdown()
        window.close()
    return results


def main(argv: list[str]) -> int:
    labs = argv or sorted(LESSONS)
    for lab_id in labs:
        out = HERE / f"{lab_id}.smllesson"
        print(f"{lab_id}:")
        for line in build(lab_id, out):
            print("  " + line)
        print(f"  wrote {out.name} ({out.stat().st_size / 1e3:.0f} kB)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
