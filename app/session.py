"""Session files (one JSON document per lab state) and the per-user configuration folder.

A session obeys the limits of the files a lab opens: :func:`read_session` (run on a worker
thread by the main window) refuses a file larger than :data:`MAX_SESSION_BYTES`, holding more
than :data:`MAX_SESSION_VALUES` values, a list of more than :data:`MAX_SESSION_ITEMS` items
(the 20,000 points of a points file), a text longer than :data:`MAX_SESSION_TEXT`
characters, a number that is not finite or a whole number beyond ±2**53, before any of it
reaches a lab. :func:`apply_session` then checks the parameters against the lab's form:
a value out of its range is not applied and the banner names it with its range.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
import time
from pathlib import Path

from .json_files import read_json_file

#: largest session file (a lab full of points writes about 1.5 MB)
#: the session format this version writes and reads (older ones are read too)
SESSION_VERSION = 1
#: the largest seed a run bar takes
MAX_SEED = 2**31 - 1
MAX_SESSION_BYTES = 8 * 2**20
#: most values (numbers, texts, lists, mappings) in one session
MAX_SESSION_VALUES = 200_000
#: most items in one list: the points of the largest points file a lab opens
MAX_SESSION_ITEMS = 20_000
#: longest text in a session (file paths, names)
MAX_SESSION_TEXT = 10_000
#: largest whole number in a session (seeds, indices and steps are far smaller)
MAX_SESSION_INT = 2**53
#: the step a session may resume at (the run is replayed up to it)
MAX_SESSION_STEP = 100_000


def config_dir() -> Path:
    """Where autosaves and window settings live (``SMLLAB_CONFIG_DIR`` overrides it)."""
    env = os.environ.get("SMLLAB_CONFIG_DIR")
    if env:
        path = Path(env)
    else:
        from PySide6.QtCore import QStandardPaths  # deferred: sessions are read and checked without Qt

        base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppConfigLocation)
        path = Path(base) if base else Path.home() / ".config" / "smllab"
    path.mkdir(parents=True, exist_ok=True)
    return path


def autosave_path(lab_id: str) -> Path:
    folder = config_dir() / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{lab_id}.json"


def _to_jsonable(value):
    import numpy as np  # deferred: the window paints before numpy is loaded (the labs load it)

    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, dict):
        return {str(k): _to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_to_jsonable(v) for v in value]
    return value


def save_session(path, state: dict) -> None:
    """Write atomically: a temporary file, flushed to disk, then renamed over the target,
    so a crash or a kill never leaves half a file (leftover temporaries are removed by
    :func:`clean_temporaries`). NaN and infinity are refused (``ValueError``)."""
    path = Path(path)
    try:
        text = json.dumps(_to_jsonable(state), indent=1, allow_nan=False)
    except ValueError:
        raise ValueError("the session holds a value that is not a finite number (NaN or infinity)") from None
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".session-", suffix=".json", dir=str(path.parent))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def clean_temporaries(folder) -> int:
    """Remove temporary files a killed save left behind; returns how many."""
    n = 0
    for leftover in Path(folder).glob(".session-*.json"):
        try:
            leftover.unlink()
            n += 1
        except OSError:
            pass
    return n


def set_aside(path) -> Path:
    """Rename a session file that must not be overwritten (unreadable, or kept by --fresh)
    to ``<name>.<date-time>.json`` in a ``set-aside`` folder next to it; never deletes it."""
    path = Path(path)
    folder = path.parent / "set-aside"
    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = folder / f"{path.stem}.{stamp}{path.suffix}"
    k = 1
    while target.exists():
        target = folder / f"{path.stem}.{stamp}-{k}{path.suffix}"
        k += 1
    os.replace(path, target)
    return target


def load_session(path) -> dict:
    """Read a session file; ``ValueError`` with a readable reason if it is not one."""
    path = Path(path)
    state = read_json_file(path, "session", MAX_SESSION_BYTES, MAX_SESSION_VALUES,
                           f"sessions hold at most {MAX_SESSION_ITEMS:,} points, the limit of a points file")
    if not isinstance(state, dict) or state.get("format") != "smllab-session" or "lab" not in state:
        raise ValueError(f"{path.name} is not an SML Lab session file")
    return state


def _where(keys: list) -> str:
    text = " ▸ ".join(str(k) for k in keys) or "top level"
    return text if len(text) <= 80 else "…" + text[-79:]


def check_session_limits(state: dict) -> None:
    """Refuse a session (``ValueError`` naming the place and the limit) that holds more than
    a lab can: see the module's docstring for the limits. Pure Python, no Qt: the main
    window runs it on a worker thread, together with :func:`load_session`."""
    stack = [([], state)]
    count = 0
    while stack:
        keys, value = stack.pop()
        count += 1
        if count > MAX_SESSION_VALUES:
            raise ValueError(f"the session holds more than {MAX_SESSION_VALUES:,} values; sessions hold at most "
                             f"{MAX_SESSION_ITEMS:,} points, the limit of a points file")
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, int):
            if abs(value) > MAX_SESSION_INT:
                raise ValueError(f"the session's {_where(keys)} is a whole number of {len(str(abs(value)))} digits; "
                                 f"numbers in a session are at most 2**53 (about 9e15)")
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise ValueError(f"the session's {_where(keys)} is too large a number (it reads as infinity); "
                                 f"numbers in a session must be finite")
        elif isinstance(value, str):
            if len(value) > MAX_SESSION_TEXT:
                raise ValueError(f"the session's {_where(keys)} is a text of {len(value):,} characters; "
                                 f"at most {MAX_SESSION_TEXT:,}")
        elif isinstance(value, list):
            if len(value) > MAX_SESSION_ITEMS:
                raise ValueError(f"the session's {_where(keys)} holds {len(value):,} items; sessions hold at most "
                                 f"{MAX_SESSION_ITEMS:,} (the points limit of a points file)")
            stack.extend((keys + [i], v) for i, v in enumerate(value))
        elif isinstance(value, dict):
            if len(value) > MAX_SESSION_ITEMS:
                raise ValueError(f"the session's {_where(keys)} holds {len(value):,} entries; "
                                 f"at most {MAX_SESSION_ITEMS:,}")
            for k in value:
                if len(k) > MAX_SESSION_TEXT:
                    raise ValueError(f"the session's {_where(keys)} has a name of {len(k):,} characters; "
                                     f"at most {MAX_SESSION_TEXT:,}")
            stack.extend((keys + [k], v) for k, v in value.items())
    step = state.get("step", 0)
    if isinstance(step, (int, float)) and not isinstance(step, bool) and step > MAX_SESSION_STEP:
        raise ValueError(f"the session's step is {step:,.0f}; a session resumes at most at step {MAX_SESSION_STEP:,}")


def read_session(path) -> dict:
    """:func:`load_session` then :func:`check_session_limits`: everything that may take time,
    for a worker thread. ``ValueError``/``OSError`` carry the message for the user."""
    state = load_session(path)
    check_session_limits(state)
    return state


def _number_text(value) -> str:
    return f"{value:.6g}" if isinstance(value, float) else (f"{value}" if abs(value) < 10**12 else f"{value:.3g}")


def _same_value(a, b) -> bool:
    """Equal and of the same kind (1 and 1.0 are the same number; True is not 1)."""
    numbers = (int, float)
    if isinstance(a, numbers) and isinstance(b, numbers) and not isinstance(a, bool) and not isinstance(b, bool):
        return a == b
    return type(a) is type(b) and a == b


def parameter_problem(spec, value) -> str:
    """Why ``value`` does not fit the form row ``spec`` (a :class:`app.widgets.params.Param`),
    or "" if it does. The form itself would clamp a number into its range; a session says so
    instead."""
    label = str(getattr(spec, "label", "") or spec.name).replace("&", "")
    kind = spec.kind
    if kind in ("int", "float", "log"):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f"{label}: expected a number, got {type(value).__name__}"
        if not math.isfinite(value):
            return f"{label}: not a finite number"
        lo = spec.minimum if spec.minimum is not None else -(2**31)
        hi = spec.maximum if spec.maximum is not None else 2**31 - 1
        if not lo <= value <= hi:
            return f"{label} = {_number_text(value)} is outside {_number_text(lo)} … {_number_text(hi)}"
        if kind == "int" and value != int(value):
            return f"{label} = {_number_text(value)} is not a whole number"
        return ""
    if kind == "choice":
        values = [v for v, _ in spec.choice_pairs()]
        if not any(_same_value(v, value) for v in values):
            shown = repr(value) if len(repr(value)) <= 30 else repr(value)[:27] + "…"
            return f"{label}: {shown} is not one of its choices"
        return ""
    if kind == "bool" and not isinstance(value, bool):
        return f"{label}: expected true or false"
    return ""


def apply_session(lab, state: dict) -> None:
    """Apply a session that :func:`read_session` accepted to ``lab`` (GUI thread).

    Parameters outside their form's range (or not among its choices) are left as they are
    and named in the lab's banner with their allowed range; everything else is applied by
    ``lab.restore_session``, which checks the rest and changes nothing if it fails.
    ``ValueError`` carries the message for the user.
    """
    params = state.get("parameters", {})
    notes = []
    specs = getattr(getattr(lab, "form", None), "params", {})
    if isinstance(params, dict):
        kept = {}
        for name, value in params.items():
            spec = specs.get(name)
            problem = parameter_problem(spec, value) if spec is not None else ""
            if problem:
                notes.append(problem)
            else:
                kept[name] = value
        state = {**state, "parameters": kept}
    try:
        lab.restore_session(state)
    except ValueError as exc:
        if str(exc).startswith("the session could not be applied ("):
            raise ValueError("the session's saved data do not fit this lab (malformed user data); "
                             "nothing was changed") from None
        raise
    if notes:
        message = "Saved settings out of range were not applied (kept as they were): " + "; ".join(notes[:4])
        if len(notes) > 4:
            message += f"; and {len(notes) - 4} more"
        earlier = lab.error_text.lstrip("⚠ ").strip()
        lab.show_error(f"{earlier}\n{message}" if earlier else message)


def check_session_state(lab_id: str, state: dict) -> tuple[dict, dict, int, int]:
    """(parameters, user data, seed, step) of a session of the lab ``lab_id``, checked
    without building the lab; ``ValueError`` with a readable reason otherwise."""
    if not isinstance(state, dict) or state.get("format") != "smllab-session":
        raise ValueError("not an SML Lab session file")
    version = state.get("version", SESSION_VERSION)
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ValueError("the session file has no valid version number")
    if version > SESSION_VERSION:
        raise ValueError(f"this session was written by a newer SML Lab (format {version}); "
                         f"this version reads format {SESSION_VERSION}")
    if state.get("lab") != lab_id:
        lab = str(state.get("lab"))[:40]
        raise ValueError(f"this session belongs to the lab {lab!r}, not {lab_id!r}")
    params = state.get("parameters", {})
    if not isinstance(params, dict):
        raise ValueError("session parameters must be a mapping")
    user = state.get("user_data") or {}
    if not isinstance(user, dict):
        raise ValueError("the session's user data must be a mapping")
    seed = _session_int(state.get("seed", 0), "seed", 0, MAX_SEED)
    step = _session_int(state.get("step", 0) or 0, "step", 0, 10**9)
    return params, user, seed, step


def _session_int(value, name: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"the session's {name} must be a number")
    if isinstance(value, float) and (not math.isfinite(value) or value != int(value)):
        raise ValueError(f"the session's {name} must be a whole number")
    value = int(value)
    if not lo <= value <= hi:
        raise ValueError(f"the session's {name} must be between {lo} and {hi}")
    return value
