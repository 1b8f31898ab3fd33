"""The files the open tests give every lab that opens files (test_failed_opens.py for the labs
with their own openers, test_points_files.py for the points labs): bytes that are no such file,
the issue's files, and files put together at random from the pieces such files are made of, or
cut short or changed in a few bytes. Seeded by the lab, so a failure replays."""

from __future__ import annotations

import io
import random

import numpy as np
from PIL import Image

#: bytes that are no file any lab reads
BAD_BYTES = b"\x00\x01\x02 this is not what the lab reads \xff\xfe" * 40
#: files made at random per lab, on top of the explicit ones
N_RANDOM = 3

POINTS_PIECES = ["x1,x2,label\n", "x;y;label\n", "x\ty\n", "x,y\n", "\n", "\r\n", ",", ";", "\t", " ", "#", "1",
                 "-2,5", "0.5", "-1", "1e301", "1e-300", "1e999", "nan", "inf", "cat", "1_0", "１", "\ufeff", "1.000,5"]
#: the issue's graph: links of 1e-310 (an out-weight whose inverse overflows), and a plain CSV edge list
EDGE_EXAMPLES = ["a b 1e-310\nb c 1e-310\nc a 1e-310\nc b 1e-310\n", "source,target\n1,2\n2,1\n2,3\n"]
EDGE_PIECES = ["a b\n", "1 2\n", "2 1\n", "0,1\n", "source,target\n", "x\ty\n", "# c\n", "\n", "\r\n", "1e-310",
               " ", ",", "1 1\n", "*Vertices 3\n", "*Arcs\n", "é", "\x00", "-1 0\n", "99999999999999999999 1\n"]
TEXT_PIECES = ["the cat sat on the mat. ", "To be, or not to be. ", "\n", "\r\n", "Über ", "\ufeff", "\x00", "é",
               "🙂", "   ", "a" * 300, "\t"]


def _png(array) -> bytes:
    out = io.BytesIO()
    Image.fromarray(array).save(out, format="PNG")
    return out.getvalue()


def image_examples() -> list[tuple[str, bytes]]:
    """The issue's photos: a constant float TIFF (1e30 everywhere) and an animated GIF; a plain PNG."""
    picture = _png((np.add.outer(np.arange(64), np.arange(80)) % 256).astype(np.uint8))
    tiff, gif = io.BytesIO(), io.BytesIO()
    Image.fromarray(np.full((64, 80), 1e30, np.float32)).save(tiff, format="TIFF")
    frames = [Image.fromarray(np.full((64, 80), v, np.uint8)) for v in (10, 200)]
    frames[0].save(gif, format="GIF", save_all=True, append_images=frames[1:], duration=100, loop=0)
    return [("tif", tiff.getvalue()), ("gif", gif.getvalue()), ("png", picture)]


def _npy(array) -> bytes:
    out = io.BytesIO()
    np.save(out, array)
    return out.getvalue()


def stack_examples() -> list[tuple[str, bytes]]:
    """Image stacks (.npy): a usable one, values near the float limit, a stack of integers."""
    rng = np.random.default_rng(0)
    return [("npy", _npy(rng.random((6, 8, 8)))), ("npy", _npy(np.full((4, 8, 8), 1e308))),
            ("npy", _npy(rng.integers(0, 255, (5, 6, 7), dtype=np.uint8)))]


def joined(rng: random.Random, pieces: list[str]) -> bytes:
    """Up to 40 pieces in a row, as UTF-8."""
    return "".join(rng.choice(pieces) for _ in range(rng.randint(0, 40))).encode("utf-8")


def mangled(rng: random.Random, data: bytes) -> bytes:
    """``data`` cut short or with a few bytes changed: what a broken download or disk gives."""
    data = bytearray(data)
    if rng.random() < 0.5:
        return bytes(data[: rng.randint(0, len(data))])
    for _ in range(rng.randint(1, 8)):
        data[rng.randrange(len(data))] = rng.randrange(256)
    return bytes(data)


def files(lab_id: str, kind: str) -> list[tuple[str, bytes]]:
    """(suffix, bytes) of the files opened in ``lab_id``, whose opener reads ``kind`` ("points",
    "edges", "text", "image" or "stack"): :data:`BAD_BYTES` first, then the issue's files of that
    kind, then :data:`N_RANDOM` made at random."""
    rng = random.Random(lab_id)
    if kind == "points":
        return [("csv", BAD_BYTES)] + [("csv", joined(rng, POINTS_PIECES)) for _ in range(N_RANDOM)]
    if kind == "edges":
        return ([("txt", BAD_BYTES)] + [("txt", text.encode("utf-8")) for text in EDGE_EXAMPLES]
                + [("txt", joined(rng, EDGE_PIECES)) for _ in range(N_RANDOM)])
    if kind == "text":
        return [("txt", BAD_BYTES)] + [("txt", joined(rng, TEXT_PIECES) + (b"\xff\xfe" if i % 3 == 0 else b""))
                                       for i in range(N_RANDOM)]
    examples = {"image": image_examples, "stack": stack_examples}[kind]()
    return ([(examples[0][0], BAD_BYTES)] + examples
            + [(suffix, mangled(rng, data)) for suffix, data in rng.choices(examples, k=N_RANDOM - 1)])
