"""The dishonest casino: the course's hidden Markov model of a fair and a loaded die."""

from __future__ import annotations

import numpy as np

from ..hmm import CategoricalHMM

__all__ = ["dishonest_casino", "CASINO_STATES", "CASINO_FACES"]

CASINO_STATES = ("fair", "loaded")
CASINO_FACES = ("1", "2", "3", "4", "5", "6")


def dishonest_casino(random_state=None):
    """The dishonest casino as a :class:`smlengine.hmm.CategoricalHMM` (2 states, 6 symbols).

    A casino rolls a fair die most of the time and now and then swaps in a loaded one:

    * states: 0 = fair die, 1 = loaded die (names in ``CASINO_STATES``);
    * symbols: 0..5 for the faces 1..6 (``CASINO_FACES``);
    * emissions: the fair die gives each face with probability 1/6; the loaded die gives a six
      with probability 1/2 and each other face with probability 1/10;
    * transitions: fair -> loaded with probability 0.05, loaded -> fair with probability 0.1
      (so A = [[0.95, 0.05], [0.1, 0.9]]);
    * start: either die with probability 1/2.

    Parameters
    ----------
    random_state : None, int or numpy Generator
        Stored on the model: the default seed of its ``sample`` (and of a fit's random start).

    Returns
    -------
    CategoricalHMM
        With ``startprob``, ``transmat`` and ``emissionprob`` set, ready to ``sample``,
        ``filter``, ``smooth`` and ``viterbi``; e.g. ``rolls, dice = dishonest_casino().sample(300, 0)``.

    Examples
    --------
    >>> from smlengine.datasets import dishonest_casino
    >>> rolls, dice = dishonest_casino().sample(12, random_state=0)
    >>> print(rolls + 1, dice)
    [6 1 5 2 6 4 2 3 1 1 5 4] [1 1 0 0 0 0 0 0 0 0 0 0]
    """
    fair = np.full(6, 1.0 / 6.0)
    loaded = np.array([0.1, 0.1, 0.1, 0.1, 0.1, 0.5])
    return CategoricalHMM(
        n_states=2,
        n_symbols=6,
        startprob=np.array([0.5, 0.5]),
        transmat=np.array([[0.95, 0.05], [0.1, 0.9]]),
        emissionprob=np.vstack([fair, loaded]),
        random_state=random_state,
    )
