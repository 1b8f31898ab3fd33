"""Chaining several generators of snapshots into one run with consecutive step numbers.

Every run a lab plays is one generator whose yields are numbered ``step = 0, 1, 2, ...``
(step 0 is the initial state). Many runs have phases (lay out a graph, then iterate the
power method, then move random surfers; grow a tree, then prune it; train the stages,
then detect). Each phase is an engine generator that counts its own steps from 0;
:func:`chain_phases` renumbers them into one sequence and labels each snapshot with its
phase, so the runner, the timeline and ``run_to(step)`` see one consistent count.

A lab's own snapshot type is a frozen dataclass subclassing :class:`~smlengine.Snapshot`;
:class:`StepCounter` numbers snapshots a lab builds itself between engine phases.

Example: k-means, then EM from scratch, as one run of consecutive steps::

    from smlengine.kmeans import KMeans
    from smlengine.mixture import GaussianMixture

    def lab_run(X):
        return chain_phases(
            ("k-means", KMeans(n_clusters=3, random_state=0).fit_steps(X)),
            ("EM", lambda: GaussianMixture(n_components=3, random_state=0).fit_steps(X)),  # started when reached
        )
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Iterable, Iterator, Union

from ._base import Snapshot

__all__ = ["chain_phases", "StepCounter", "renumber"]

PhaseSource = Union[Iterable[Snapshot], Callable[[], Iterable[Snapshot]]]


def renumber(snapshot: Snapshot, step: int, phase: str | None = None) -> Snapshot:
    """The snapshot with ``step`` (and ``phase`` when given) replaced; same object if unchanged."""
    changes: dict[str, Any] = {}
    if snapshot.step != step:
        changes["step"] = step
    if phase is not None and snapshot.phase != phase:
        changes["phase"] = phase
    return dataclasses.replace(snapshot, **changes) if changes else snapshot


class StepCounter:
    """Hands out consecutive step numbers for one run (``next()``), starting at 0.

    Parameters
    ----------
    start : int, default=0
        The first number handed out.

    Examples
    --------
    >>> from smlengine import Snapshot
    >>> from smlengine.phases import StepCounter
    >>> counter = StepCounter(start=5)
    >>> counter.next(), [s.step for s in counter.renumber([Snapshot(step=0), Snapshot(step=1)])]
    (5, [6, 7])
    """

    def __init__(self, start: int = 0):
        self.value = int(start)

    def next(self) -> int:
        """The next step number."""
        step = self.value
        self.value += 1
        return step

    def renumber(self, snapshots: Iterable[Snapshot], phase: str | None = None) -> Iterator[Snapshot]:
        """Yield ``snapshots`` renumbered from the counter, labelled with ``phase`` if given."""
        for snap in snapshots:
            yield renumber(snap, self.next(), phase)


def chain_phases(*phases: tuple[str | None, PhaseSource], counter: StepCounter | None = None) -> Iterator[Snapshot]:
    """Yield the snapshots of each ``(label, source)`` in turn with consecutive steps.

    ``source`` is an iterable of snapshots or a zero-argument callable returning one (so
    a phase that depends on the previous one's result starts only when it is reached).
    ``label`` replaces each snapshot's ``phase`` unless it is None. Numbering continues
    from ``counter`` when one is given (a lab that also yields snapshots of its own).

    Yields
    ------
    Snapshot
        The phases' snapshots, ``step`` = 0, 1, 2, ... across all phases.

    Examples
    --------
    >>> from smlengine import Snapshot
    >>> from smlengine.phases import chain_phases
    >>> first = [Snapshot(step=0), Snapshot(step=1)]
    >>> steps = chain_phases(("fit", first), ("score", lambda: [Snapshot(step=0)]))
    >>> [(s.step, s.phase) for s in steps]
    [(0, 'fit'), (1, 'fit'), (2, 'score')]
    """
    counter = counter or StepCounter()
    for label, source in phases:
        iterable = source() if callable(source) and not hasattr(source, "__iter__") else source
        yield from counter.renumber(iterable, label)
