"""Derive resources/data/python-docs-graph.tsv.gz from Python's installed HTML documentation.

Usage (Debian/Ubuntu; the package is only needed to regenerate the file):

    apt-get install python3.11-doc
    python resources/data/scripts/derive_python_docs_graph.py [/usr/share/doc/python3.11/html]

The crawl itself is :func:`smlengine.datasets.crawl_html_folder` (breadth first from
index.html; only <a href> links between HTML pages of the folder; fragments, external links,
non-HTML targets, duplicates and self-loops dropped), so the lab and this script agree.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from smlengine.datasets import _graph  # noqa: E402

DEFAULT_SOURCE = Path("/usr/share/doc/python3.11/html")
OUT = ROOT / "resources" / "data" / "python-docs-graph.tsv.gz"


def main(argv: list[str]) -> int:
    source = Path(argv[1]) if len(argv) > 1 else DEFAULT_SOURCE
    names, titles, src, dst, dropped = _graph._crawl(source)
    adjacency = _graph.csr_adjacency(src, dst, len(names))
    header = "\n".join(
        [
            "Hyperlink graph of the Python 3.11 HTML documentation (Debian package python3.11-doc).",
            "Copyright Python Software Foundation; licensed under the PSF License Agreement",
            "(see /usr/share/doc/python3.11-doc/copyright and https://docs.python.org/3/license.html).",
            "Derived by resources/data/scripts/derive_python_docs_graph.py from " + str(source) + ".",
            f"pages: {len(names)}, links: {adjacency.nnz} (duplicates and self-loops removed)",
            "dropped hrefs: " + ", ".join(f"{k} {v}" for k, v in sorted(dropped.items())),
            "format: 'page<TAB>index<TAB>path<TAB>title' in crawl order, then 'link<TAB>i<TAB>j'.",
        ]
    )
    _graph.write_graph_file(OUT, names, titles, adjacency, header=header)
    print(header)
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
