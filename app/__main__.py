"""Command line of SML Lab: start the window, or render labs headless.

    python -m app                                  start the application
    python -m app SESSION.smllab                   start the application and open a saved session
    python -m app --home                           start the application on the course map
    python -m app --home --screenshot out.png [--size WxH] [--projector]
                                                   render the course map headless (with the labs' pictures)
    python -m app --list-labs                      one lab per line, starting with its id
    python -m app --lab ID --steps N --screenshot out.png [--size WxH] [--projector] [--seed S] [--theme dark]
                  [--maths shown|hidden] [--params shown|hidden]
    python -m app --screenshots DIR [--steps N]    one picture per lab (the README pictures)
    python -m app --self-test                      build every lab, run a few steps, exit 0 if all work
    python -m app --lesson FILE [--lesson-step N] [--reveal] [--screenshot out.png [--size WxH] [--projector]]
                                                   open a lesson (.smllesson) at step N, or render that step headless
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from pathlib import Path

# The GUI thread and the run's worker already keep two cores busy; a multi-threaded BLAS
# beside them spends its time waiting (a 4 ms kernel product took 38 ms in the app).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

log = logging.getLogger("app")
_T0 = time.perf_counter()  # for the hidden --startup-time (build/check_frozen.py)


def _parse_size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size must look like 1280x800, got {text!r}") from None
    if not (200 <= w <= 8000 and 200 <= h <= 8000):
        raise argparse.ArgumentTypeError("width and height must be between 200 and 8000 pixels")
    return w, h


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="smllab", description="SML Lab: a laboratory for statistical machine learning.")
    p.add_argument("session", nargs="?", default=None, metavar="SESSION",
                   help="a saved session (.smllab) to open at start, at its saved state")
    p.add_argument("--list-labs", action="store_true", help="print the labs (id, title, description) and exit")
    p.add_argument("--lab", metavar="ID", help="open this lab")
    p.add_argument("--home", action="store_true",
                   help="show the course map (with --screenshot: render it headless)")
    p.add_argument("--steps", type=int, default=None, metavar="N", help="run N steps (with --screenshot)")
    p.add_argument("--screenshot", metavar="PNG", help="render the lab headless after --steps and save a PNG")
    p.add_argument("--screenshots", metavar="DIR", help="render every lab headless into DIR/<id>.png")
    p.add_argument("--size", type=_parse_size, default=(1400, 860), metavar="WxH", help="window size for screenshots")
    p.add_argument("--projector", action="store_true", help="projector mode (large fonts, thick lines)")
    p.add_argument("--theme", choices=("light", "dark"), default=None, help="colour theme")
    p.add_argument("--maths", choices=("shown", "hidden"), default=None,
                   help="the maths panel (F1) on screen or not, also in projector mode (default: as the mode has it)")
    p.add_argument("--params", choices=("shown", "hidden"), default=None,
                   help="the parameters (F2) on screen or not (default: as the mode has it)")
    p.add_argument("--seed", type=int, default=None, help="random seed of the run")
    p.add_argument("--lesson", metavar="FILE", help="open a lesson (.smllesson); with --screenshot, render one step")
    p.add_argument("--lesson-step", type=int, default=1, metavar="N", help="the lesson's step to show (1 = first)")
    p.add_argument("--reveal", action="store_true", help="with --lesson --screenshot: show the step after its reveal")
    p.add_argument("--self-test", action="store_true",
                   help="run every lab (or those of --lab a,b) headless for a few steps; exit 0 if all succeed")
    p.add_argument("--fresh", action="store_true", help="ignore autosaved sessions and window settings")
    p.add_argument("--timeout", type=float, default=120.0, help=argparse.SUPPRESS)
    # with --lab --screenshot: the course map's picture of a lab (its plots alone, at the lab's screenshot_steps)
    p.add_argument("--thumbnail", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--startup-time", action="store_true", help=argparse.SUPPRESS)  # show, print seconds, exit
    p.add_argument("-v", "--verbose", action="store_true", help="log more")
    return p


def _make_app(headless: bool):
    if headless and "QT_QPA_PLATFORM" not in os.environ:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6 import QtWidgets

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv[:1])
    app.setApplicationName("SML Lab")
    app.setOrganizationName("SML Lab")
    _set_icon(app)
    return app


def _set_icon(app) -> None:
    from PySide6 import QtGui

    from smlengine._resources import resource_root

    icon = resource_root() / "icons" / "smllab.png"
    if icon.exists():
        app.setWindowIcon(QtGui.QIcon(str(icon)))


def wait_for(predicate, timeout: float) -> bool:
    """Process Qt events until ``predicate()`` is true or ``timeout`` seconds pass."""
    from PySide6 import QtWidgets

    app = QtWidgets.QApplication.instance()
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        app.processEvents()
        if predicate():
            return True
        time.sleep(0.005)
    app.processEvents()
    return predicate()


def run_lab_headless(window, lab_id: str, steps: int, seed: int | None = None, timeout: float = 120.0):
    """Show a lab, compute ``steps`` steps, draw the result; returns the lab."""
    lab = window.open_lab(lab_id)
    from PySide6 import QtWidgets

    if isinstance(lab.plots, QtWidgets.QTabWidget):
        lab.plots.setCurrentIndex(lab.screenshot_tab)
    if seed is not None and seed != lab.seed:
        lab.runbar.seed.setValue(seed)  # goes through the lab's own seed handling
    lab.start()
    lab.runner.run_to(steps)
    r = lab.runner

    def reached():
        last = r.timeline.last
        return r.error is not None or r.finished or (last is not None and last.step >= steps)

    if not wait_for(reached, timeout):
        raise TimeoutError(f"lab {lab_id!r} did not reach step {steps} within {timeout:.0f} s")
    r.flush()
    if lab.prepare_needed():
        wait_for(lambda: r.current is None or r.prepared_for(r.current) is not None or r.error is not None, 10.0)
        r.flush()
    window._update_status()
    wait_for(lambda: False, 0.1)  # lay out the status bar's new texts before a capture
    return lab


def _image_is_blank(image) -> bool:
    from PySide6 import QtGui

    small = image.scaled(64, 64).convertToFormat(QtGui.QImage.Format.Format_RGB32)
    colours = {small.pixel(x, y) for x in range(small.width()) for y in range(small.height())}
    return len(colours) < 4


def _new_window(args, lab_ids=None, interactive=False):
    from . import style as theme
    from .main_window import MainWindow

    headless = bool(args.screenshot or args.screenshots or args.self_test)
    restore = not (headless or args.fresh)
    window = MainWindow(restore=restore, autosave=not headless, lab_ids=lab_ids,
                        build_after_first_paint=interactive and not headless,
                        thumbnails=None if (args.home or not headless) else False)
    if args.projector:
        window.set_projector(True)
    if args.theme:
        window.set_dark(args.theme == "dark")
    elif headless:
        theme.manager().set(theme="light")
    if headless:
        window.resize(*args.size)
    return window


def cmd_list(out=sys.stdout) -> int:
    from . import registry

    for cls in registry.discover():
        print(f"{cls.id}\t{cls.title} — {cls.description}", file=out)
    for name, err in registry.import_errors.items():
        print(f"# {name}: could not load ({err})", file=sys.stderr)
    return 0


def cmd_screenshot(args) -> int:
    _make_app(True)
    from . import registry

    try:
        registry.get(args.lab)
    except KeyError as exc:
        print(exc.args[0], file=sys.stderr)
        return 2
    window = _new_window(args, lab_ids=[args.lab])
    steps = args.steps if args.steps is not None else 30
    if args.thumbnail:  # drawn in the background for the course map: the lab's plots, at its picture's step
        try:
            os.nice(10)
        except (AttributeError, OSError):
            pass
        window.set_maths_visible(False)
        window.set_controls_visible(False)
        if args.steps is None:
            steps = int(registry.get(args.lab).screenshot_steps)
    window.show()
    try:
        lab = run_lab_headless(window, args.lab, steps, args.seed, args.timeout)
        if _show_panels(window, args):
            lab.runner.flush()
            window._update_status()
            wait_for(lambda: False, 0.2)  # lay out the panels' new widths before the capture
        image = (lab.plots if args.thumbnail else window).grab().toImage()
        Path(args.screenshot).parent.mkdir(parents=True, exist_ok=True)
        if not image.save(args.screenshot):
            print(f"could not write {args.screenshot}", file=sys.stderr)
            return 1
        if lab.runner.error:
            print(f"warning: the lab reported an error: {lab.runner.error}", file=sys.stderr)
    finally:
        window.shutdown()
        window.close()
    print(args.screenshot)
    return 0


def _show_panels(window, args) -> bool:
    """``--maths`` and ``--params``: the panels as F1 and F2 leave them; True if one changed."""
    changed = False
    if args.maths is not None:
        window.set_maths_shown(args.maths == "shown")
        changed = True
    if args.params is not None:
        window.set_controls_shown(args.params == "shown")
        changed = True
    return changed


def cmd_home_screenshot(args) -> int:
    """Render the course map headless, once the labs' pictures are drawn (or found drawn)."""
    _make_app(True)
    window = _new_window(args)
    window.show_home()
    window.show()
    try:
        pictures = window.thumbnails
        wait_for(lambda: not pictures.busy, max(args.timeout, 60.0) * max(1, len(window.hosts)))
        wait_for(lambda: False, 0.2)  # lay out the cards with their pictures before the capture
        image = window.grab().toImage()
        Path(args.screenshot).parent.mkdir(parents=True, exist_ok=True)
        if not image.save(args.screenshot):
            print(f"could not write {args.screenshot}", file=sys.stderr)
            return 1
    finally:
        window.shutdown()
        window.close()
    print(args.screenshot)
    return 0


def cmd_lesson_screenshot(args) -> int:
    """Render one step of a lesson headless as the class sees it (after its reveal with --reveal)."""
    _make_app(True)
    from .lessons.format import load_lesson

    try:
        lesson = load_lesson(args.lesson)
    except (OSError, ValueError) as exc:
        print(f"could not open the lesson: {exc}", file=sys.stderr)
        return 2
    n = len(lesson.steps)
    if not 1 <= args.lesson_step <= n:
        print(f"--lesson-step must be between 1 and {n} (the lesson has {n} steps)", file=sys.stderr)
        return 2
    window = _new_window(args, lab_ids=lesson.labs())
    window.show()
    try:
        player = window.lessons
        player.start(lesson, args.lesson, args.lesson_step - 1)
        if not wait_for(player.arrived, args.timeout):
            print(f"step {args.lesson_step} did not arrive within {args.timeout:.0f} s", file=sys.stderr)
            return 1
        if args.reveal:
            player.reveal()
            if not wait_for(player.settled, args.timeout):
                print(f"the reveal of step {args.lesson_step} did not end within {args.timeout:.0f} s", file=sys.stderr)
                return 1
        lab = player.current_lab()
        lab.runner.flush()
        if lab.prepare_needed():
            r = lab.runner
            wait_for(lambda: r.current is None or r.prepared_for(r.current) is not None or r.error is not None, 10.0)
            r.flush()
        window._update_status()
        wait_for(lambda: False, 0.2)  # lay out the bar and the status bar before the capture
        image = window.grab().toImage()
        Path(args.screenshot).parent.mkdir(parents=True, exist_ok=True)
        if not image.save(args.screenshot):
            print(f"could not write {args.screenshot}", file=sys.stderr)
            return 1
        for text in (player.message, player.result if args.reveal else ""):
            if text:
                print(text, file=sys.stderr)
    finally:
        window.shutdown()
        window.close()
    print(args.screenshot)
    return 0


def cmd_screenshots(args) -> int:
    _make_app(True)
    from . import registry

    out = Path(args.screenshots)
    out.mkdir(parents=True, exist_ok=True)
    status = 0
    for cls in registry.discover():
        window = _new_window(args, lab_ids=[cls.id])
        window.show()
        try:
            run_lab_headless(window, cls.id, args.steps if args.steps is not None else cls_default_steps(cls),
                             args.seed, args.timeout)
            path = out / f"{cls.id}.png"
            window.grab().toImage().save(str(path))
            print(path)
        except Exception as exc:  # noqa: BLE001 - report and continue with the others
            print(f"{cls.id}: {exc}", file=sys.stderr)
            status = 1
        finally:
            window.shutdown()
            window.close()
    return status


def cls_default_steps(cls) -> int:
    return int(cls.screenshot_steps)


def cmd_self_test(args) -> int:
    _make_app(True)
    from . import registry

    failures = []
    classes = registry.discover()
    if args.lab:  # --self-test --lab a,b: those labs only
        wanted = [name.strip() for name in args.lab.split(",") if name.strip()]
        for name in wanted:
            try:
                registry.get(name)
            except KeyError as exc:
                print(exc.args[0], file=sys.stderr)
                return 2
        classes = [cls for cls in classes if cls.id in wanted]
    for name, err in registry.import_errors.items():
        failures.append(f"{name}: import failed: {err}")
    for cls in classes:
        started = time.perf_counter()
        window = _new_window(args, lab_ids=[cls.id])
        window.show()
        try:
            lab = run_lab_headless(window, cls.id, int(cls.self_test_steps), args.seed, args.timeout)
            problems = []
            if lab.runner.error:
                problems.append(f"run error: {lab.runner.error}")
            if lab.runner.current is None:
                problems.append("no snapshot was produced")
            if _image_is_blank(window.grab().toImage()):
                problems.append("the rendered window is blank")
            lab.step()
            lab.step_back()
            lab.reset()
            wait_for(lambda: lab.runner.current is not None or lab.runner.error is not None, args.timeout)
            if problems:
                failures.append(f"{cls.id}: " + "; ".join(problems))
                print(f"FAIL {cls.id}: {'; '.join(problems)}")
            else:
                print(f"ok   {cls.id} ({time.perf_counter() - started:.1f} s)")
        except Exception as exc:  # noqa: BLE001 - every failure is reported, none is fatal
            failures.append(f"{cls.id}: {type(exc).__name__}: {exc}")
            print(f"FAIL {cls.id}: {type(exc).__name__}: {exc}")
        finally:
            window.shutdown()
            window.close()
    if not classes:
        failures.append("no lab is registered")
    print(f"self-test: {len(classes) - len([f for f in failures if ':' in f])} of {len(classes)} labs passed"
          if classes else "self-test: no labs")
    for f in failures:
        print("  " + f, file=sys.stderr)
    return 0 if not failures else 1


def _no_display() -> bool:
    """True on Linux/BSD when no X11 or Wayland display is reachable and no platform is forced."""
    if not sys.platform.startswith(("linux", "freebsd", "openbsd")) or os.environ.get("QT_QPA_PLATFORM"):
        return False
    return not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def cmd_run(args) -> int:
    if _no_display():
        print("SML Lab found no display to open its window on (DISPLAY and WAYLAND_DISPLAY are not set).\n"
              "Start it from a desktop session, or work headless, for example:\n"
              "  python -m app --lab classifiers --steps 30 --screenshot out.png\n"
              "  python -m app --self-test\n"
              "(or set QT_QPA_PLATFORM=offscreen to run the window invisibly).", file=sys.stderr)
        return 1
    app = _make_app(False)
    window = _new_window(args, interactive=True)
    if not window.restored_geometry:
        window.fit_to_screen()
    if args.home:
        window.show_home()
    if args.lab:
        try:
            window.open_lab(args.lab)
        except KeyError as exc:
            print(exc.args[0], file=sys.stderr)
    if args.seed is not None:
        lab = window.lab()
        if lab is not None:
            lab.runbar.seed.setValue(args.seed)
    window.show()
    freeze_start_up_heap(window)
    if args.lesson:
        from PySide6 import QtCore

        lesson_path = str(Path(args.lesson).expanduser().resolve())
        QtCore.QTimer.singleShot(0, lambda: window.lessons.open_file(lesson_path, max(args.lesson_step, 1) - 1))
    if args.session:  # a double-clicked .smllab file: open it once the window is up
        from PySide6 import QtCore

        path = str(Path(args.session).expanduser().resolve())
        QtCore.QTimer.singleShot(0, lambda: window.open_session(path))
    if sys.platform == "darwin":
        _open_files_from_system(app, window)
    return app.exec()


def freeze_start_up_heap(window) -> None:
    """Once the first lab is built, move every object alive (Qt's and pyqtgraph's wrappers,
    numpy, scipy and the lab's widgets: a few hundred thousand) out of the garbage
    collector's reach. They live as long as the window anyway; a full collection then walks
    only what the runs create since, so its pause in the middle of a playing run is shorter."""
    import gc

    from PySide6 import QtCore

    done = []

    def freeze(*_args) -> None:
        if not done:
            done.append(True)
            gc.freeze()

    if window.built_labs():
        QtCore.QTimer.singleShot(0, freeze)
    else:
        window.labBuilt.connect(freeze)


def _open_files_from_system(app, window) -> None:
    """macOS hands a double-clicked document to the running app as a FileOpen event, not in argv."""
    from PySide6 import QtCore

    class _FileOpen(QtCore.QObject):
        def eventFilter(self, obj, event):  # Qt's name
            if event.type() == QtCore.QEvent.Type.FileOpen and event.file():
                window.open_session(event.file())
                return True
            return False

    app._smllab_file_open = _FileOpen(app)  # kept alive with the application
    app.installEventFilter(app._smllab_file_open)


def cmd_startup_time(args) -> int:
    """Start as usual; print the seconds since this module loaded until the window is painted
    (``startup-time``) and until its first lab is built and drawn (``lab-ready``)."""
    from PySide6 import QtCore

    app = _make_app(False)
    window = _new_window(args, interactive=True)
    page = window.tabs.currentWidget()  # the course map, or the lab restored in front
    # printed from the paint itself (a lab in front is built right after it)
    page.firstPainted.connect(
        lambda: print(f"startup-time {time.perf_counter() - _T0:.3f} s since app.__main__ loaded", flush=True))
    window.show()
    while window.current_lab_id() and window.hosts[window.current_lab_id()].lab is None:
        app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 50)
    app.processEvents()
    print(f"lab-ready {time.perf_counter() - _T0:.3f} s", flush=True)
    window.shutdown()
    window.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    if args.steps is not None and args.steps < 0:
        print("--steps must be >= 0", file=sys.stderr)
        return 2
    if args.list_labs:
        return cmd_list()
    if args.self_test:
        return cmd_self_test(args)
    if args.startup_time:
        return cmd_startup_time(args)
    if args.screenshots:
        return cmd_screenshots(args)
    if args.lesson and args.screenshot:
        return cmd_lesson_screenshot(args)
    if args.home and args.screenshot:
        return cmd_home_screenshot(args)
    if args.screenshot:
        if not args.lab:
            print("--screenshot needs --lab ID or --home (see --list-labs)", file=sys.stderr)
            return 2
        return cmd_screenshot(args)
    return cmd_run(args)


if __name__ == "__main__":
    import multiprocessing

    multiprocessing.freeze_support()  # a frozen build re-enters here in a spawned child (reference checks)
    sys.exit(main())
