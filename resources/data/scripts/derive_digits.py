"""Derive resources/data/digits.npz from the UCI optical digits that scikit-learn ships.

Source: ``sklearn/datasets/data/digits.csv.gz`` (the test set of the UCI "Optical
Recognition of Handwritten Digits" data, Alpaydin & Kaynak 1998, CC BY 4.0): 1,797 rows of
64 pixel counts in 0..16 (8 × 8 blocks, row-major) followed by the label 0..9.

Output: a deflate-compressed ``.npz`` with two uint8 arrays,
``images`` (1797, 8, 8) and ``labels`` (1797,), in the source's row order. The zip members
get a fixed timestamp, so the file is byte-identical on every run.

Run from the repository root:  .venv/bin/python resources/data/scripts/derive_digits.py
scikit-learn is a test dependency only; the app reads the .npz.
"""

from __future__ import annotations

import gzip
import io
import sys
import zipfile
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "digits.npz"


def source_csv() -> Path:
    import sklearn.datasets  # noqa: PLC0415 -- only needed to locate the source file

    return Path(sklearn.datasets.__file__).parent / "data" / "digits.csv.gz"


def read_source(path: Path) -> tuple[np.ndarray, np.ndarray]:
    with gzip.open(path, "rt") as fh:
        table = np.loadtxt(fh, delimiter=",", dtype=np.float64)
    if table.shape != (1797, 65):
        raise SystemExit(f"unexpected shape {table.shape} in {path}")
    values = table.astype(np.uint8)
    if not np.array_equal(values, table) or values[:, :64].max() > 16 or values[:, 64].max() > 9:
        raise SystemExit(f"unexpected values in {path}")
    return values[:, :64].reshape(-1, 8, 8), values[:, 64].copy()


def write_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """np.savez_compressed, but with fixed zip timestamps (reproducible bytes)."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for name, arr in arrays.items():
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.ascontiguousarray(arr), allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, buf.getvalue(), compresslevel=9)


def derive(out: Path = OUT, source: Path | None = None) -> Path:
    images, labels = read_source(source or source_csv())
    write_npz(out, {"images": images, "labels": labels})
    return out


if __name__ == "__main__":
    target = derive(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
    print(f"wrote {target} ({target.stat().st_size} bytes)")
