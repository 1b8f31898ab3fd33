"""Pictures of the labs for the course map, rendered from the labs themselves.

Each picture is the lab's plots in its default state (default parameters, run to the lab's
``screenshot_steps``), drawn by a separate process of the application
(``python -m app --lab <id> --thumbnail --screenshot <file>``, or the frozen executable with
the same arguments), one lab at a time, so the window never waits for a lab it did not open.
Pictures are kept in the user's cache folder under a name made of the application's version
and a hash of the lab's source files: a changed lab is drawn again, an unchanged one never.

``SMLLAB_THUMBNAILS=0`` turns the rendering off (the test suite does; one test turns it on);
the map then shows the cached pictures it finds and a tinted tile for the others.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import sys
from pathlib import Path

from PySide6 import QtCore, QtGui

from . import __version__

log = logging.getLogger(__name__)

#: the size of the window the picture is taken in, and of the stored picture
RENDER_SIZE = (960, 620)
THUMB_SIZE = (640, 360)
#: raised when the way pictures are taken changes (every cached picture is drawn again)
THUMB_FORMAT = 1
#: a lab whose picture is not drawn within this many seconds is left as a tile
JOB_TIMEOUT_S = 240
APP_ROOT = Path(__file__).resolve().parent.parent


def enabled_by_default() -> bool:
    return os.environ.get("SMLLAB_THUMBNAILS", "1").strip().lower() not in ("0", "false", "no", "off")


def cache_dir() -> Path:
    """``SMLLAB_CACHE_DIR``; else beside the configuration when ``SMLLAB_CONFIG_DIR`` is set
    (tests, portable use); else the user's cache folder."""
    env = os.environ.get("SMLLAB_CACHE_DIR")
    if env:
        base = Path(env)
    elif os.environ.get("SMLLAB_CONFIG_DIR"):
        base = Path(os.environ["SMLLAB_CONFIG_DIR"]) / "cache"
    else:
        location = QtCore.QStandardPaths.writableLocation(QtCore.QStandardPaths.StandardLocation.CacheLocation)
        base = Path(location) if location else Path.home() / ".cache" / "smllab"
    return base / "thumbnails"


_hashes: dict[str, str] = {}


def source_hash(package: str) -> str:
    """A hash of the lab package's source files (of nothing when no source is shipped); read
    once per process."""
    if package not in _hashes:
        _hashes[package] = _hash_sources(package)
    return _hashes[package]


def _hash_sources(package: str) -> str:
    digest = hashlib.sha1()
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        spec = None
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    for folder in folders:
        for path in sorted(Path(folder).rglob("*.py")):
            try:
                digest.update(path.relative_to(folder).as_posix().encode())
                digest.update(path.read_bytes())
            except OSError:
                continue
    return digest.hexdigest()[:16]


def picture_name(lab) -> str:
    key = hashlib.sha1(f"{__version__}|{THUMB_FORMAT}|{source_hash(lab.package)}".encode()).hexdigest()[:16]
    return f"{lab.id}-{key}.png"


def render_command(lab_id: str, out: Path) -> tuple[str, list[str]]:
    """The program and arguments that draw one lab's picture into ``out``."""
    args = ["--lab", lab_id, "--thumbnail", "--screenshot", str(out), "--size", "{}x{}".format(*RENDER_SIZE)]
    if getattr(sys, "frozen", False):
        return sys.executable, args
    return sys.executable, ["-m", "app", *args]


class ThumbnailRenderer(QtCore.QObject):
    """Draws the pictures of the labs one at a time in a background process.

    :meth:`path` names a lab's current picture when it exists; :meth:`request` queues the
    labs without one; the queue runs while :meth:`set_active` is on (the map is shown) and
    :attr:`ready` announces each new picture.
    """

    ready = QtCore.Signal(str, str)  # lab id, picture path
    idle = QtCore.Signal()

    def __init__(self, labs, parent=None, enabled: bool | None = None):
        super().__init__(parent)
        self.labs = {lab.id: lab for lab in labs}
        self.enabled = enabled_by_default() if enabled is None else bool(enabled)
        self.folder = cache_dir()
        self._names: dict[str, str] = {}
        self._queue: list[str] = []
        self._failed: set[str] = set()
        self._active = False
        self._process: QtCore.QProcess | None = None
        self._job = ""
        self._timer = QtCore.QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._too_slow)

    def _name(self, lab_id: str) -> str:
        if lab_id not in self._names:
            self._names[lab_id] = picture_name(self.labs[lab_id])
        return self._names[lab_id]

    def path(self, lab_id: str) -> Path | None:
        """The lab's picture for this version of the lab, if it was drawn."""
        path = self.folder / self._name(lab_id)
        return path if path.is_file() else None

    @property
    def busy(self) -> bool:
        """A picture is being drawn or waits to be (while rendering is on)."""
        return self._process is not None or (self.enabled and bool(self._queue))

    def request(self, lab_ids) -> None:
        """Queue the labs whose picture is missing (nothing when rendering is off)."""
        if not self.enabled:
            return
        for lab_id in lab_ids:
            if lab_id in self.labs and lab_id not in self._queue and lab_id != self._job \
                    and lab_id not in self._failed and self.path(lab_id) is None:
                self._queue.append(lab_id)
        self._next()

    def set_active(self, on: bool) -> None:
        """Draw while on; when off, the picture being drawn is finished and no other starts."""
        self._active = bool(on)
        self._next()

    def _next(self) -> None:
        if self._process is not None or not self._active:
            return
        if not self._queue:
            self.idle.emit()
            return
        self._job = self._queue.pop(0)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            log.warning("no folder for the labs' pictures (%s): %s", self.folder, exc)
            self._queue.clear()
            self._job = ""
            self.enabled = False
            self.idle.emit()
            return
        out = self._partial(self._job)
        program, args = render_command(self._job, out)
        process = QtCore.QProcess(self)
        env = QtCore.QProcessEnvironment.systemEnvironment()
        env.insert("QT_QPA_PLATFORM", "offscreen")  # never a window on the teacher's screen
        env.insert("SMLLAB_THUMBNAILS", "0")
        env.insert("SMLLAB_CONFIG_DIR", str(self.folder / "render-config"))  # the user's sessions are not touched
        if not getattr(sys, "frozen", False):
            env.insert("PYTHONPATH", os.pathsep.join(p for p in (str(APP_ROOT), env.value("PYTHONPATH", "")) if p))
            process.setWorkingDirectory(str(APP_ROOT))
        process.setProcessEnvironment(env)
        process.setProcessChannelMode(QtCore.QProcess.ProcessChannelMode.MergedChannels)
        process.finished.connect(self._finished)
        process.errorOccurred.connect(self._error)
        self._process = process
        self._timer.start(JOB_TIMEOUT_S * 1000)
        process.start(program, args)

    def _partial(self, lab_id: str) -> Path:
        return self.folder / f".{lab_id}-drawing-{os.getpid()}.png"

    def _error(self, error) -> None:
        if error == QtCore.QProcess.ProcessError.FailedToStart:
            self._done(False, "the process did not start")

    def _too_slow(self) -> None:
        if self._process is not None:
            self._process.kill()  # finished() follows and ends the job

    def _finished(self, code: int = 0, status=None) -> None:
        ok = code == 0 and status != QtCore.QProcess.ExitStatus.CrashExit
        message = ""
        if not ok and self._process is not None:
            message = bytes(self._process.readAll().data()).decode("utf-8", "replace")[-500:]
        self._done(ok, message)

    def _done(self, ok: bool, message: str) -> None:
        process, lab_id = self._process, self._job
        if process is None:
            return
        self._timer.stop()
        self._process, self._job = None, ""
        process.deleteLater()
        partial = self._partial(lab_id)
        final = self.folder / self._name(lab_id)
        if ok and self._store(partial, final):
            for old in self.folder.glob(f"{lab_id}-*.png"):
                if old != final:
                    old.unlink(missing_ok=True)
            self.ready.emit(lab_id, str(final))
        else:
            self._failed.add(lab_id)  # not tried again in this run
            log.warning("could not draw the picture of the %s lab: %s", lab_id, message.strip() or "no picture")
        partial.unlink(missing_ok=True)
        self._next()

    @staticmethod
    def _store(partial: Path, final: Path) -> bool:
        image = QtGui.QImage(str(partial))
        if image.isNull():
            return False
        w, h = THUMB_SIZE
        image = image.scaled(w, h, QtCore.Qt.AspectRatioMode.KeepAspectRatioByExpanding,
                             QtCore.Qt.TransformationMode.SmoothTransformation)
        image = image.copy((image.width() - w) // 2, (image.height() - h) // 2, w, h)
        tmp = final.with_name(f".{final.name}")
        if not image.save(str(tmp)):
            return False
        os.replace(tmp, final)
        return True

    def shutdown(self) -> None:
        """Stop drawing: the queue is dropped and a running process is ended."""
        self._queue.clear()
        self._active = False
        self._timer.stop()
        process, self._process = self._process, None
        if process is not None:
            process.finished.disconnect(self._finished)
            process.errorOccurred.disconnect(self._error)
            process.kill()
            process.waitForFinished(3000)
            self._partial(self._job).unlink(missing_ok=True)
            process.deleteLater()
        self._job = ""
