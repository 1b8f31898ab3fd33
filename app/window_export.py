"""The main window's File ▸ Export actions: the main plot, the whole lab view, the data as
CSV and the run as an animated GIF. :class:`ExportActions` is a part of
:class:`app.main_window.MainWindow` (it uses its current lab, dialogs and status bar)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6 import QtCore, QtGui, QtWidgets

if TYPE_CHECKING:
    from .lab import Lab


class ExportActions:
    """Export the current lab's plot, view, data or run (methods of the main window)."""

    def export_plot(self, path: str, lab: Lab | None = None) -> None:
        """PNG or SVG of the lab's main plot (PNG of the whole lab if it has none)."""
        lab = lab or self.lab()
        plot = lab.main_plot() if lab else None
        if path.lower().endswith(".svg"):
            if plot is None:
                raise ValueError("this lab has no plot to export as SVG")
            from .widgets.svg_export import export_svg  # deferred: pyqtgraph loads with the first lab

            export_svg(plot, path)
        else:
            from .widgets.view_export import export_png  # deferred: pyqtgraph, as above

            # twice the screen's pixels, every text in its on-screen proportion
            export_png(plot if plot is not None else lab, path)

    def export_view(self, path: str, lab: Lab | None = None) -> None:
        """PNG or SVG of the whole lab view as on screen: its form, every plot and the maths."""
        from .widgets.view_export import export_view  # deferred: pyqtgraph, as above

        lab = lab or self.lab()
        if lab is None:
            raise ValueError("no lab is open")
        export_view(lab, path, title=f"SML Lab: {lab.title}")

    def _ask_path(self, title: str, suffix: str, filters: str) -> tuple[Lab | None, str]:
        """The current lab and a file name chosen in a save dialog ("" if cancelled)."""
        lab = self.lab()
        if lab is None:
            return None, ""
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self, title, str(Path.home() / f"{lab.id}{suffix}"), filters)
        self.activateWindow()  # the keyboard shortcuts work again at once
        return lab, path

    def _export(self, what: str, action) -> None:
        try:
            action()
        except (OSError, ValueError) as exc:
            self._error(f"Could not export the {what}", str(exc))

    def export_plot_dialog(self) -> None:
        lab, path = self._ask_path("Export plot", ".png", "PNG image (*.png);;SVG drawing (*.svg)")
        if path:
            self._export("plot", lambda: self.export_plot(path, lab))

    def export_view_dialog(self) -> None:
        lab, path = self._ask_path("Export lab view", ".png", "PNG image (*.png);;SVG drawing (*.svg)")
        if path:
            self._export("view", lambda: self.export_view(path, lab))

    def export_data_dialog(self) -> None:
        lab, path = self._ask_path("Export data", ".csv", "CSV (*.csv)")
        if path:
            self._export("data", lambda: lab.export_csv(path))

    def export_gif(self, path: str, lab: Lab | None = None, max_frames: int = 60, fps: float = 8.0,
                   progress=None) -> int:
        """Animate the run so far: up to ``max_frames`` snapshots of the timeline, drawn
        one after the other and captured. Returns the number of frames written."""
        from PIL import Image  # deferred: Pillow loads only to write a GIF

        from .runner import History  # deferred: the runner's timeline loads numpy, after the first paint

        lab = lab or self.lab()
        r = lab.runner
        upto = r.current_index
        if upto < 0:
            raise ValueError("nothing has run yet: press Play or Step first")
        n = min(max_frames, upto + 1)
        indices = sorted({round(i * upto / max(n - 1, 1)) for i in range(n)})
        frames = []
        target = lab.plots
        try:
            for k, i in enumerate(indices):
                snap = r.timeline[i]
                prepared = r.prepared_for(snap)
                if prepared is None and lab.prepare_needed():
                    prepared = lab.prepare(snap)
                lab.render(snap, prepared, History(r.timeline, i, r.timeline.upto(i), True))
                QtWidgets.QApplication.processEvents()
                image = target.grab().toImage().convertToFormat(QtGui.QImage.Format.Format_RGBA8888)
                buf = bytes(image.constBits())
                frames.append(Image.frombuffer("RGBA", (image.width(), image.height()), buf, "raw", "RGBA",
                                               image.bytesPerLine(), 1).convert("RGB"))
                if progress is not None:
                    progress(k + 1, len(indices))
        finally:
            r.request_rewind()
            r.flush()
        frames[0].save(path, save_all=True, append_images=frames[1:], duration=int(1000 / fps), loop=0, optimize=False)
        return len(frames)

    def export_gif_dialog(self) -> None:
        lab, path = self._ask_path("Export run as GIF", ".gif", "Animated GIF (*.gif)")
        if not path:
            return
        lab.pause()
        dialog = QtWidgets.QProgressDialog("Drawing frames…", "", 0, 100, self)
        dialog.setCancelButton(None)
        dialog.setWindowModality(QtCore.Qt.WindowModality.WindowModal)
        dialog.show()
        started = time.perf_counter()

        def write():
            n = self.export_gif(path, lab, progress=lambda k, total: dialog.setValue(int(100 * k / total)))
            self.statusBar().showMessage(f"Wrote {n} frames to {path} in {time.perf_counter() - started:.1f} s", 5000)

        try:
            self._export("animation", write)
        finally:
            dialog.close()
