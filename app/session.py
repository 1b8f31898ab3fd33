"""Session files (one JSON document per lab state) and the per-user configuration folder."""

from __future__ import annotations

import json
import os
import tempfile
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
    """Write atomically (temporary file + rename) so a crash never leaves half a file."""
    path = Path(path)
    text = json.dumps(_to_jsonable(state), indent=1, allow_nan=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".session-", suffix=".json", dir=str(path.parent))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_session(path) -> dict:
    """Read a session file; ``ValueError`` with a readable reason if it is not one."""
    path = Path(path)
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
        state = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path.name} is not valid JSON (line {exc.lineno}: {exc.msg})") from None
    if not isinstance(state, dict) or state.get("format") != "smllab-session" or "lab" not in state:
        raise ValueError(f"{path.name} is not an SML Lab session file")
    return state
