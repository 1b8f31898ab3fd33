"""Reference check against scikit-learn (optional dependency, imported lazily).

The check runs in a child process (:func:`reference_check_in_process`): a libsvm fit cannot
be interrupted from Python (it may take minutes at legal settings), but a process can be
terminated. Cancelling the side task (a parameter change, Reset, another check, closing the
lab or the window) therefore stops the computation at once, and nothing outlives the app.
This module stays Qt-free: the child imports it (and scikit-learn), never PySide6.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import weakref

import numpy as np

from smlengine.grid import grid_points

from ...points_data import sklearn_available  # noqa: F401 - the lab asks reference.sklearn_available()
from .run import COEF0, SVM_KERNEL, is_svm, make_estimator

#: seconds between looks at the cancel flag while the child computes
POLL_SECONDS = 0.05
#: longest error message brought back from the child
MAX_MESSAGE = 300

_children: "weakref.WeakSet" = weakref.WeakSet()
_children_lock = threading.Lock()


def supported(kind: str) -> bool:
    return kind == "logistic" or is_svm(kind)


def reference_check(kind: str, params: dict, X, y, extent, resolution: int = 150) -> dict:
    """Fit ours and scikit-learn's model on the same training data and parameters.

    Returns the fraction of equal predictions on a ``resolution``² grid over ``extent``,
    the largest difference of the decision values there, and the support-vector counts.
    For logistic regression our loss sum log(1 + exp(-y<w, x~>)) + ||v||²/(2C) is
    scikit-learn's C * sum log(...) + ||v||²/2 divided by C, so C is the same.
    """
    X = np.asarray(X, float)
    y = np.where(np.asarray(y) > 0, 1, -1)
    if np.unique(y).size < 2:
        raise ValueError("the reference check needs training points of both classes")
    if is_svm(kind):
        from sklearn.svm import SVC  # deferred: the optional reference library, loaded when the check runs

        kernel = SVM_KERNEL[kind]
        ours = make_estimator(kind, params).fit(X, y)
        theirs = SVC(C=params["C"], kernel=kernel, gamma=params["gamma"] if kernel == "rbf" else 1.0,
                     degree=int(params["degree"]), coef0=COEF0, tol=1e-3).fit(X, y)
        counts = (int(ours.support_.size), int(theirs.support_.size))
        name = f"SVC(kernel='{kernel}')"
    elif kind == "logistic":
        from sklearn.linear_model import LogisticRegression as SkLR  # deferred: the optional reference library

        ours = make_estimator(kind, {**params, "max_iter": max(int(params["max_iter"]), 1000)}).fit(X, y)
        theirs = SkLR(C=params["C"], tol=1e-10, max_iter=10000).fit(X, y)
        counts = None
        name = "LogisticRegression"
    else:
        raise ValueError("the reference check covers logistic regression and the SVMs")
    _, _, pts = grid_points(extent, resolution)
    f_ours = ours.decision_function(pts)
    f_theirs = theirs.decision_function(pts)
    agree = float(np.mean((f_ours > 0) == (f_theirs > 0)))
    return {
        "name": name,
        "agreement": agree,
        "max_diff": float(np.max(np.abs(f_ours - f_theirs))),
        "scale": float(np.max(np.abs(f_theirs))),
        "train_agreement": float(np.mean(ours.predict(X) == theirs.predict(X))),
        "n_support": counts if counts is not None else (-1, -1),
        "n_points": int(len(y)),
        "grid": int(resolution),
    }


def reference_check_in_process(kind: str, params: dict, X, y, extent, resolution: int = 150, *, state=None):
    """:func:`reference_check` in a child process, terminated as soon as ``state`` is cancelled.

    Returns the result dict, or None when cancelled (a cancelled task's result is dropped).
    Errors in the child come back as ``ValueError`` with a short message.
    """
    return call_in_child_process(reference_check, kind, dict(params), np.asarray(X, float), np.asarray(y, float),
                                 tuple(float(v) for v in extent), int(resolution), state=state)


def live_children() -> list:
    """Child processes of reference checks that are still running (tests use it)."""
    with _children_lock:
        return [p for p in list(_children) if p.is_alive()]


def call_in_child_process(func, *args, state=None, name: str = "sml-reference"):
    """Call ``func(*args)`` in a fresh ("spawn") child process and return its result.

    ``func`` and ``args`` are pickled (``func`` by reference: a module-level function).
    While waiting, the calling (worker) thread looks at ``state.cancelled`` every
    :data:`POLL_SECONDS`; when set, the child is terminated (killed if it does not stop)
    and None is returned. An exception in the child becomes a ``ValueError`` with its
    message; a child that dies without answering (crash, out of memory) becomes a
    ``ValueError`` that says so.
    """
    ctx = multiprocessing.get_context("spawn")
    receiver, sender = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child_main, args=(sender, func, args), name=name, daemon=True)
    proc.start()
    sender.close()  # the child holds the only writing end: EOF when it dies
    with _children_lock:
        _children.add(proc)
    answer = None
    try:
        while answer is None:
            if state is not None and state.cancelled:
                return None
            if receiver.poll(POLL_SECONDS):
                try:
                    answer = receiver.recv()
                except (EOFError, OSError):
                    answer = ("died", None)
    finally:
        _stop(proc)
        receiver.close()
    status, value = answer
    if status == "ok":
        return value
    if status == "error":
        raise ValueError(value)
    raise ValueError(f"the scikit-learn process ended without an answer (exit code {proc.exitcode})")


def _stop(proc) -> None:
    if proc.is_alive():
        proc.terminate()
        proc.join(2.0)
        if proc.is_alive():
            proc.kill()
    proc.join(2.0)


def _short(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1] + "…"


def _child_main(conn, func, args) -> None:
    """Body of the child process: compute, send ("ok", result) or ("error", message)."""
    _die_with_parent()
    try:
        answer = ("ok", func(*args))
    except BaseException as exc:  # noqa: BLE001 - everything goes back as a short message
        answer = ("error", _short(exc))
    try:
        conn.send(answer)
    except Exception as exc:  # noqa: BLE001 - e.g. a result that cannot be pickled
        conn.send(("error", _short(exc)))
    finally:
        conn.close()


def _die_with_parent() -> None:
    """End this child when the app ends, even one killed without a chance to clean up.

    On Linux the kernel sends SIGKILL when the thread that started us exits (it waits for
    our answer, so it outlives any useful work); elsewhere a thread watches the parent.
    """
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    parent = multiprocessing.parent_process()
    if parent is not None:
        def watch():
            parent.join()  # returns when the parent process has ended
            os._exit(1)

        threading.Thread(target=watch, name="parent-watch", daemon=True).start()
