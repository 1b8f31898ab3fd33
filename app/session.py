"""Session files (one JSON document per lab state) and the per-user configuration folder."""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path

MAX_SESSION_BYTES = 50_000_000


def config_dir() -> Path:
    """Where autosaves and window settings live (``SMLLAB_CONFIG_DIR`` overrides it)."""
    env = os.environ.get("SMLLAB_CONFIG_DIR")
    if env:
        path = Path(env)
    else:
        from PySide6.QtCore import QStandardPaths

        base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppConfigLocation)
        path = Path(base) if base else Path.home() / ".config" / "smllab"
    path.mkdir(parents=True, exist_ok=True)
    return path


def autosave_path(lab_id: str) -> Path:
    folder = config_dir() / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{lab_id}.json"


def _to_jsonable(value):
    try:
        import numpy as np
    except ImportError:  # pragma: no cover - numpy is a hard dependency
        np = None
    if np is not None:
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


def _refuse_constant(name: str):
    raise ValueError(f"the file contains {name}, which is not a number a session may hold")


def load_session(path) -> dict:
    """Read a session file; ``ValueError`` with a readable reason if it is not one."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{path.name} is a folder, not a session file")
    size = path.stat().st_size
    if size == 0:
        raise ValueError(f"{path.name} is empty")
    if size > MAX_SESSION_BYTES:
        raise ValueError(f"{path.name} is too large to be a session file ({size / 1e6:.0f} MB)")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{path.name} is not a text file") from None
    try:
        state = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path.name} is not valid JSON (line {exc.lineno}: {exc.msg})") from None
    except RecursionError:
        raise ValueError(f"{path.name} is nested too deeply to be a session file") from None
    except ValueError as exc:
        raise ValueError(f"{path.name}: {exc}") from None
    if not isinstance(state, dict) or state.get("format") != "smllab-session" or "lab" not in state:
        raise ValueError(f"{path.name} is not an SML Lab session file")
    return state
