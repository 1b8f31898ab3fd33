"""Links and titles of HTML pages, found in linear time on any markup, and the pages of a folder.

The parsing half of :func:`smlengine.datasets.crawl_html_folder`, which keeps the crawl itself
(its limits, the page reads, the breadth-first order): :func:`_visible_markup` drops
comments, scripts and styles, :func:`page_links` gives a page's ``<a href>`` targets and its
title, :func:`resolve_href` maps an href to a page of the folder, :func:`html_files` lists the
folder's pages without recursion, and :func:`common_suffix` finds the site name that ends
every title.
"""

from __future__ import annotations

import html
import os
import posixpath
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import numpy as np


# Link extraction with regular expressions that run in linear time on any input, even
# broken markup (html.parser is quadratic on '<a <a <a ...'). Each pattern either
# matches at the position where it starts or fails after a bounded look, and every
# unbounded part (an attribute list, a quoted value) also ends at the end of the text
# without backtracking, so consecutive matches never rescan the same characters.
_HIDDEN_OPEN = re.compile(r"<!--|<(script|style)(?=[\s/>])", re.IGNORECASE)
_HIDDEN_CLOSE = {
    "": re.compile(r"-->"),
    "script": re.compile(r"</script\s*>", re.IGNORECASE),
    "style": re.compile(r"</style\s*>", re.IGNORECASE),
}
# <a ...> start tag: attributes are runs of plain characters or quoted strings (a quote
# that never closes runs to the end of the text); '>' inside quotes does not end the tag.
_A_TAG = re.compile(r"""<a(?=[\s/>])((?:[^>"']+|"[^"]*"?|'[^']*'?)*)""", re.IGNORECASE)
_HREF = re.compile(
    r"""(?<![\w:.-])href\s*=\s*(?:"([^"]*)"?|'([^']*)'?|([^\s"'>]+))""", re.IGNORECASE
)
_TITLE_OPEN = re.compile(r"<title(?=[\s/>])[^>]*>?", re.IGNORECASE)
_TITLE_CLOSE = re.compile(r"</title\s*>", re.IGNORECASE)


def _visible_markup(text: str) -> str:
    """``text`` without comments, scripts and styles (a link there is no link of the page).

    One pass: each hidden block is found from where the previous one ended, and a block
    that is never closed hides the rest of the page (as in a browser).
    """
    parts, pos = [], 0
    while True:
        m = _HIDDEN_OPEN.search(text, pos)
        if m is None:
            parts.append(text[pos:])
            break
        parts.append(text[pos : m.start()])
        end = _HIDDEN_CLOSE[(m.group(1) or "").lower()].search(text, m.end())
        if end is None:
            break
        pos = end.end()
    return "".join(parts)


def page_links(text: str) -> tuple[list[str], str]:
    """``<a href>`` targets in document order and the ``<title>`` text of one page.

    Time linear in the page's length on any input (see the patterns above).
    """
    text = _visible_markup(text)
    hrefs = []
    for tag in _A_TAG.finditer(text):
        m = _HREF.search(tag.group(1))
        if m is not None:
            href = next(g for g in m.groups() if g is not None)
            if href:
                hrefs.append(href)
    title = ""
    m = _TITLE_OPEN.search(text)
    if m is not None:
        end = _TITLE_CLOSE.search(text, m.end())
        raw = text[m.end() : end.start() if end is not None else len(text)]
        title = " ".join(html.unescape(raw[:10_000]).split())
    return hrefs, title


def resolve_href(page: str, href: str, pages: set[str]):
    """Folder-relative path of the HTML page ``href`` points to, or a reason to drop it."""
    try:
        parts = urlsplit(html.unescape(href))
    except ValueError:  # e.g. 'http://[::1' (an unclosed IPv6 host): skip this link only
        return None, "malformed"
    if parts.scheme or parts.netloc:
        return None, "external"
    if not parts.path:
        return None, "fragment"  # '#section' stays on the same page
    path = unquote(parts.path)
    # A site-absolute "/license.html" means the folder's root: the folder is the site.
    base = "" if path.startswith("/") else posixpath.dirname(page)
    target = posixpath.normpath(posixpath.join(base, path.lstrip("/")))
    if parts.path.endswith("/") and posixpath.join(target, "index.html") in pages:
        target = posixpath.join(target, "index.html")  # a folder link means its index page
    if not target.lower().endswith((".html", ".htm")):
        return None, "not html"
    if target not in pages:
        return None, "missing page"
    if target == page:
        return None, "self-loop"
    return target, None


def html_files(root: Path, limit: int) -> tuple[list[str], bool]:
    """Folder-relative paths of the .html/.htm files under ``root``, at most ``limit``.

    An explicit stack instead of recursion (``Path.rglob`` and ``os.walk`` recurse once per
    folder level, so a folder 1,000 levels deep raised RecursionError); symbolic links to
    folders are not followed (they can form cycles). Folders are visited in name order, so
    the pages kept under the limit do not depend on the file system. Returns the sorted
    paths and whether the limit cut the list.
    """
    found: list[str] = []
    stack = [(root, "")]
    while stack:
        folder, prefix = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue  # unreadable folder: its pages are not part of the crawl
        subfolders = []
        for entry in entries:
            rel = prefix + entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    subfolders.append((Path(entry.path), rel + "/"))
                elif entry.name.lower().endswith((".html", ".htm")) and entry.is_file():
                    found.append(rel)
                    if len(found) > limit:  # one more than allowed: the list is cut
                        return sorted(found[:limit]), True
            except OSError:
                continue
        stack.extend(reversed(subfolders))  # pop() then visits them in name order
    return sorted(found), False


def common_suffix(titles):
    tails = [t[t.rfind(" \u2014 "):] for t in titles if " \u2014 " in t]
    if not tails:
        return ""
    values, counts = np.unique(tails, return_counts=True)
    best = int(np.argmax(counts))
    return str(values[best]) if counts[best] * 2 > len(titles) else ""
