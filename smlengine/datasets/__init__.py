"""Data sets: seeded 2-D toy problems, point files, and the shipped corpora and graphs.

The 2-D generators live in :mod:`smlengine.datasets._toy`. Loaders of the shipped
text corpus and web graph live in their own modules and are imported on first use,
so importing this package stays cheap.
"""

from __future__ import annotations

import importlib

from ._toy import (
    GENERATORS,
    holdout_mask,
    load_points,
    load_two_class_points,
    make_blobs,
    make_circles,
    make_dataset,
    make_moons,
    make_spirals,
    make_xor,
    save_points,
)

# name -> submodule holding it; resolved lazily by __getattr__ below.
_LAZY = {
    "load_corpus": "_text",
    "list_plays": "_text",
    "load_play": "_text",
    "read_text_file": "_text",
    "load_graph": "_graph",
    "read_edge_list": "_graph",
    "crawl_html_folder": "_graph",
    "textbook_chain": "_graph",
    "karate_club": "_graph",
    "scale_free_digraph": "_graph",
    "load_digits": "_digits",
    "load_image_stack": "_digits",
    "digit_from_bitmap": "_digit_bitmap",
    "list_photos": "_images",
    "load_photo": "_images",
    "read_image_file": "_images",
    "load_cascade": "_faces",
    "load_face_patches": "_faces",
    "negative_photos": "_faces",
    "negative_photo": "_faces",
    "HELD_OUT_PHOTO": "_faces",
    "make_gaussian_mixture": "_mixture",
    "make_mixture_preset": "_mixture",
    "mixture_preset": "_mixture",
    "MIXTURE_PRESETS": "_mixture",
    "dishonest_casino": "_casino",
    "mixture_truth": "_mixture",
    "MixtureTruth": "_mixture",
    "TRUTHS": "_regression",
    "truth_function": "_regression",
    "make_regression_1d": "_regression",
    "save_xy_points": "_regression",
    "load_xy_points": "_regression",
    "iter_text_lines": "_lines",
    "read_points": "_points_file",
    "PointsTable": "_points_file",
    "line_budget": "_lines",
    "make_lda_corpus": "_topics",
    "bar_topics": "_topics",
    "build_vocabulary": "_topics",
    "tokenize_words": "_topics",
    "shakespeare_passages": "_topics",
    "load_stop_words": "_topics",
}

__all__ = [
    "GENERATORS",
    "make_blobs",
    "make_moons",
    "make_circles",
    "make_xor",
    "make_spirals",
    "make_dataset",
    "save_points",
    "load_points",
    "load_two_class_points",
    "holdout_mask",
    *_LAZY,
]


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'smlengine.datasets' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
