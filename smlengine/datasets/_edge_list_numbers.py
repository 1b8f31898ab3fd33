"""Edge lists of plain integer ids, read a chunk at a time with numpy.

Most edge lists are lines of two non-negative integers (SNAP files, a graph library's
export, a script's output). Read line by line in Python they cost many times
``numpy.loadtxt``; here a chunk of complete lines is checked and parsed as one byte array.

:func:`read_integer_links` is the first reader :func:`smlengine.datasets.read_edge_list`
tries. It takes blank and comment lines before the first link (SNAP's and KONECT's headers)
and then lines that are blank or ``id id`` exactly: ASCII digits without a leading zero,
at most 18 of them (so every id fits int64 and is written one way only), spaces or TABs
between, ``\\n``, ``\\r\\n`` or ``\\r`` at the end. At the first chunk with anything else (a
name, a quote, a comma, a comment after a link, a third column, a long line, non-ASCII
text) it stops at the start of that chunk's first unread line and gives back what it read:
the line-by-line parser goes on from there with the same :class:`Findings`, and
:func:`first_seen_codes` gives it the nodes in the order it would have met them. So which
reader read a line never changes the result.

:func:`nodes_of_integer_ids` numbers the ids of a file read to its end here with the rule of
:func:`smlengine.datasets._edge_list_text.nodes_of_integer_names`, from the ids themselves.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._edge_list_text import LINE_BREAK, Findings

#: the bytes of a chunk of plain integer links: digits, spaces, TABs and line breaks
_PLAIN_BYTES = b"0123456789 \t\r\n"
#: the longest id read here: 18 digits always fit int64 (the other reader's rule too)
MAX_DIGITS = 18
_SPACE, _TAB, _LF, _CR, _ZERO = 32, 9, 10, 13, 48


@dataclass
class IntegerLinks:
    """What :func:`read_integer_links` read.

    ``ids`` holds the ids of the links read, source then target (int64); ``lines`` is the
    number of lines read; ``rest`` the text from the first line not read, ``None`` when
    the input was read to its end. ``beyond_limit`` is the line of the first link beyond
    the limit when there was one (the reading stopped there), else 0.
    """

    ids: np.ndarray
    lines: int
    rest: str | None
    beyond_limit: int = 0


def _count_lines(data: bytes) -> int:
    """Line breaks in ``data``, ``\\r\\n`` counting once."""
    a = np.frombuffer(data, dtype=np.uint8)
    lf = int(np.count_nonzero(a == _LF))  # numpy counts a byte faster than bytes.count
    if b"\r" not in data:
        return lf
    return lf + int(np.count_nonzero(a == _CR)) - int(np.count_nonzero((a[:-1] == _CR) & (a[1:] == _LF)))


def _plain_region(data: bytes, max_line: int):
    """``(ids, position of each link's first id, separators)`` of complete lines that are all
    blank or ``id id``, or None if any line is anything else (or longer than ``max_line``).

    ``data`` starts at a line start and ends with a line break. The separators are
    ``'whitespace'`` and ``'TAB'`` (a TAB between the two ids) in order of first use.
    """
    if data.translate(None, _PLAIN_BYTES):
        return None
    a = np.frombuffer(data, dtype=np.uint8)
    digit = (a - np.uint8(_ZERO)) < 10  # uint8 arithmetic wraps below '0'
    bounds = np.flatnonzero(digit[1:] != digit[:-1]) + 1
    if digit[0]:
        bounds = np.concatenate(([0], bounds))
    starts, ends = bounds[0::2], bounds[1::2]  # data ends with a line break: as many ends as starts
    if starts.size % 2:
        return None
    breaks = None
    if starts.size:
        lengths = ends - starts
        if lengths.max() > MAX_DIGITS or ((a[starts] == _ZERO) & (lengths > 1)).any():
            return None
        firsts, seconds = starts[0::2], starts[1::2]
        # The usual layout is checked on one byte per id: a single space or TAB between a
        # link's ids, a line break just before the next link. Anything else is checked by
        # numbering lines: a link's two ids on one line, the next link on a later line.
        inside = a[seconds - 1]
        before = a[firsts[1:] - 1]
        if not ((seconds - ends[0::2] == 1).all() and ((inside == _SPACE) | (inside == _TAB)).all()
                and ((before == _LF) | (before == _CR)).all()):
            breaks = (a == _LF) | (a == _CR)
            line = np.cumsum(breaks, dtype=np.intp)[starts]
            if (line[0::2] != line[1::2]).any() or (line[2::2] <= line[1:-1:2]).any():
                return None
    if len(data) > max_line + 1:
        # A line of ids is at most two ids and the blanks around them: when no run of
        # blanks is longer than a third of the allowance, no line can be too long.
        longest_gap = len(data) if not starts.size else max(
            int(starts[0]), len(data) - int(ends[-1]), int((starts[1:] - ends[:-1]).max(initial=0)))
        if 2 * MAX_DIGITS + 3 * longest_gap > max_line:
            if breaks is None:
                breaks = (a == _LF) | (a == _CR)
            at = np.flatnonzero(breaks)
            if max(int(at[0]), int((np.diff(at) - 1).max(initial=0))) > max_line:
                return None
    if not starts.size:
        return np.empty(0, dtype=np.int64), starts, ()
    ids = _decimal_values(data, ends, lengths)
    if b"\t" not in data:
        return ids, firsts, ("whitespace",)
    tabs = np.flatnonzero(a == _TAB)
    link = np.searchsorted(seconds, tabs)  # the link whose second id is the first after the TAB
    keep = link < seconds.size
    link, tabs = link[keep], tabs[keep]
    tabbed = np.zeros(seconds.size, dtype=bool)
    tabbed[link[tabs >= ends[0::2][link]]] = True  # TABs between a link's ids, not before its first
    if tabbed.all():
        return ids, firsts, ("TAB",)
    if not tabbed.any():
        return ids, firsts, ("whitespace",)
    tab_first = int(np.argmax(tabbed)) < int(np.argmax(~tabbed))
    return ids, firsts, ("TAB", "whitespace") if tab_first else ("whitespace", "TAB")


_ASCII_ZEROS = np.uint64(0x3030303030303030)
_PAIRS, _QUADS, _LOW_HALF = np.uint64(0x00FF00FF00FF00FF), np.uint64(0x0000FFFF0000FFFF), np.uint64(0xFFFFFFFF)
#: for n digits, the mask of a word's last n bytes
_LAST_BYTES = np.array([0] + [2**64 - 2 ** (8 * (8 - n)) for n in range(1, 9)], dtype=np.uint64)


def _eight_digits(words: np.ndarray, digits: np.ndarray) -> np.ndarray:
    """The numbers written in the last ``digits`` (1 to 8) bytes of each 8-byte word (in place).

    A word read little-endian holds its first byte lowest. The bytes before the number are
    cleared, then neighbouring digits are joined in three rounds on all eight bytes at once:
    into two-digit numbers (byte pairs), four-digit numbers (16-bit halves), eight digits.
    """
    x = words
    x ^= _ASCII_ZEROS  # '0'..'9' become 0..9 (no borrow between bytes, as a subtraction would)
    x &= _LAST_BYTES[digits]
    for shift, scale, mask in ((8, 10, _PAIRS), (16, 100, _QUADS), (32, 10_000, _LOW_HALF)):
        low = x >> np.uint64(shift)
        x *= np.uint64(scale)
        x += low
        x &= mask
    return x


def _decimal_values(data: bytes, ends: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The numbers of at most 18 digits ending at ``ends`` in ``data``, 8 digits at a time.

    Each number's last eight bytes (fewer for a short one) are read as one 64-bit word from
    an unaligned view of the bytes (padded in front, so a number may start at byte 0).
    """
    padded = bytes(8) + data
    words = np.ndarray((len(padded) - 7,), dtype="<u8", buffer=padded, strides=(1,))
    values = _eight_digits(words.take(ends), np.minimum(lengths, 8))
    todo = np.flatnonzero(lengths > 8)  # numbers with digits before their last eight
    ends, lengths, scale = ends[todo] - 8, lengths[todo] - 8, 10**8
    while todo.size:
        values[todo] += _eight_digits(words.take(ends), np.minimum(lengths, 8)) * np.uint64(scale)
        more = lengths > 8
        todo, ends, lengths, scale = todo[more], ends[more] - 8, lengths[more] - 8, scale * 10**8
    return values.astype(np.int64)


def _leading_comments(text: str, findings: Findings, final: bool, max_line: int):
    """Blank and comment lines at the start of ``text``, read into ``findings``.

    Returns ``(characters read, lines read, done)``; ``done`` is true when a line that is
    neither follows (or a line too long for this reader), false when ``text`` ended first.
    """
    pos = lines = 0
    while pos < len(text):
        m = LINE_BREAK.search(text, pos)
        if m is None or (m.end() == len(text) and m.group() == "\r" and not final):
            # an unfinished line (its '\r' may be the first half of a '\r\n')
            if not final:
                return pos, lines, len(text) - pos > max_line
            end = after = len(text)
        else:
            end, after = m.start(), m.end()
        if end - pos > max_line:
            return pos, lines, True
        line = text[pos:end].strip()
        if line and line[0] not in "#%":
            return pos, lines, True
        if line:
            findings.comment(line)
        pos, lines = after, lines + 1
    return pos, lines, False


def read_integer_links(chunks, findings: Findings, *, limit: int, max_line: int) -> IntegerLinks:
    """Links of plain integer ids from the text ``chunks`` (an iterator), until anything else.

    Reads the blank and comment lines before the first link, then complete lines of plain
    integer links a chunk at a time, into ``findings`` (comments, style, separators). Stops
    at the first chunk holding another line, at the start of its first unread line
    (``rest``), leaving the following chunks in ``chunks``; stops at the first link beyond
    ``limit`` links (``beyond_limit``, and no ids). Memory: the ids read and one chunk.
    """
    parts: list[np.ndarray] = []
    count = lines = 0  # ids and lines read
    text = ""  # unread text, from a line start
    leading = True
    final = False

    def stop(rest):
        ids = np.concatenate(parts) if parts else np.empty(0, dtype=np.int64)
        return IntegerLinks(ids, lines, rest)

    while not final:
        chunk = next(chunks, None)
        final = chunk is None
        if chunk:
            text += chunk
        if leading:
            pos, n, done = _leading_comments(text, findings, final, max_line)
            text, lines = text[pos:], lines + n
            if not done:
                continue
            leading = False
        if not text.isascii():
            return stop(text)
        data = text.encode("ascii")
        if final:
            cut = len(data)
        else:
            end = len(data) - data.endswith(b"\r")  # keep a last '\r' with its line: '\n' may follow
            cut = max(data.rfind(b"\n", 0, end), data.rfind(b"\r", 0, end)) + 1
        region = data[:cut]
        if region:
            found = _plain_region(region if region.endswith((b"\n", b"\r")) else region + b"\n", max_line)
            if found is None:
                return stop(text)
            ids, firsts, separators = found
            if count + ids.size > 2 * limit:
                first_beyond = int(firsts[limit - count // 2])
                return IntegerLinks(np.empty(0, dtype=np.int64), lines, None,
                                    beyond_limit=lines + 1 + _count_lines(region[:first_beyond]))
            if ids.size:
                parts.append(ids)
                count += ids.size
                findings.seen_content = True
                for sep in separators:
                    findings.add_separator(sep)
            lines += _count_lines(region)
        text = text[cut:]
        if len(text) > max_line:  # an unfinished line already too long: the other reader reports it
            return stop(text)
    return stop(None)


def nodes_of_integer_ids(ids: np.ndarray, first: int = 0):
    """``(names, node of every id)`` for the ids of a file of integer links.

    The rule of :func:`~smlengine.datasets._edge_list_text.nodes_of_integer_names`, computed
    from the ids: nodes ``first .. largest`` while the ids are dense (largest + 1 - first at
    most twice the number of distinct ids; ``first`` becomes 0 if an id is below it), else
    the ids that occur in increasing order. Distinct ids are counted on a table of flags
    when the ids are small enough to be dense, else by sorting.
    """
    high = int(ids.max())
    if first and int(ids.min()) < first:
        first = 0
    if high + 1 - first <= 2 * ids.size:
        seen = np.zeros(high + 1, dtype=bool)
        seen[ids] = True
        distinct = np.flatnonzero(seen)
        if high + 1 - first <= 2 * distinct.size:
            return [str(i) for i in range(first, high + 1)], ids - first if first else ids
        return [str(i) for i in distinct.tolist()], np.searchsorted(distinct, ids)
    distinct, nodes = np.unique(ids, return_inverse=True)
    return [str(i) for i in distinct.tolist()], nodes.reshape(-1)


def first_seen_codes(ids: np.ndarray):
    """``(index, codes)``: the ids' names numbered in order of first appearance (as the
    line-by-line parser numbers names), and the number of every id."""
    if not ids.size:
        return {}, np.empty(0, dtype=np.int64)
    distinct, first_at, inverse = np.unique(ids, return_index=True, return_inverse=True)
    order = np.argsort(first_at)
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    names = map(str, distinct[order].tolist())
    return dict(zip(names, range(order.size))), rank[inverse.reshape(-1)]
