"""The engine must stay usable without Qt: importing it loads no GUI module."""

import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import smlengine

FORBIDDEN = ("PySide6", "pyqtgraph", "superqt", "app", "shiboken6")


def test_engine_imports_no_gui():
    modules = [m.name for m in pkgutil.walk_packages(smlengine.__path__, prefix="smlengine.")]
    assert "smlengine.linear" in modules
    code = (
        "import importlib, json, sys\n"
        f"for m in {modules!r}:\n"
        "    importlib.import_module(m)\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=str(Path(smlengine.__file__).resolve().parent.parent))
    loaded = json.loads(out.stdout)
    bad = [m for m in loaded if m.split(".")[0] in FORBIDDEN]
    assert bad == [], f"the engine imported GUI modules: {bad}"
