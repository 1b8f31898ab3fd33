"""No unexplained NaN or infinity in what a lab's default run produces (issue 32, item 11).

For every registered lab the default run is played flat out to its end; every snapshot the
timeline kept is walked (its fields, the snapshots and dataclasses it holds, fitted estimators'
learned attributes): a number is finite or None, apart from the markers documented as NaN on
purpose (``EXPLAINED``). Where a value is undefined at a step the lab shows "—": the maths text
of every kept snapshot names no "nan" or "inf", and the numbers a lesson may name are finite.
"""

import re

import pytest
from nonfinite import EXPLAINED, non_finite

from app import registry

LAB_IDS = [cls.id for cls in registry.discover()]

#: snapshots of one run whose maths text is written (evenly spread over the timeline)
MATHS_SAMPLES = 60
_NON_FINITE_WORD = re.compile(r"(?<![A-Za-z])(nan|inf|infinity)(?![A-Za-z])", re.IGNORECASE)


def _text(html: str) -> str:
    return re.sub(r"<[^>]+>", " ", html)


@pytest.mark.timeout(600)
@pytest.mark.parametrize("lab_id", LAB_IDS)
def test_default_run_has_no_unexplained_nan(qtbot, make_window, lab_id):
    window = make_window(lab_ids=[lab_id])
    lab = window.show_lab(lab_id)
    r = lab.runner
    qtbot.waitUntil(lambda: r.current is not None or r.error is not None, timeout=30_000)
    assert r.error is None, r.error
    r.set_rate(None)
    window.setUpdatesEnabled(False)  # the values are checked here, not the pictures: nothing is painted
    lab.play()
    qtbot.waitUntil(lambda: r.finished or r.error is not None, timeout=500_000)
    assert r.error is None, r.error
    qtbot.waitUntil(lambda: r.settled, timeout=30_000)
    window.setUpdatesEnabled(True)

    snapshots = list(r.timeline)
    assert snapshots and snapshots[-1] is r.timeline.last
    bad = []
    for snap in snapshots:
        bad += non_finite(snap, EXPLAINED, f"step {snap.step}")
        if len(bad) > 20:
            break
    assert not bad, f"{lab_id}: non-finite values in snapshots: {bad[:10]}"

    picks = sorted({round(i * (len(snapshots) - 1) / max(1, MATHS_SAMPLES - 1)) for i in range(MATHS_SAMPLES)})
    for i in picks:
        snap = snapshots[i]
        words = _NON_FINITE_WORD.findall(_text(lab.maths_html(snap)))
        assert not words, f"{lab_id}: the maths of step {snap.step} shows {words}"
        values = {k: v for k, v in lab.lesson_values(snap).items() if v is not None and v != v or
                  v in (float("inf"), float("-inf"))}
        assert not values, f"{lab_id}: lesson values of step {snap.step} are not finite: {values}"
    qtbot.waitUntil(lambda: not r._dirty, timeout=30_000)
    shown = _NON_FINITE_WORD.findall(lab.maths.toPlainText())
    assert not shown, f"{lab_id}: the maths panel shows {shown}"
    window.close()
