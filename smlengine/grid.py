"""A decision function evaluated on a regular grid, with its level sets traced.

Pure numpy + scikit-image (no Qt), so labs compute frames on worker threads
(``Lab.prepare``); :class:`app.widgets.decision_map.DecisionMap` only draws them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import math

import numpy as np

from ._params import Integral, Interval, validate_call

__all__ = ["DecisionFrame", "grid_points", "decision_frame"]


@dataclass(frozen=True, eq=False)
class DecisionFrame:
    """f evaluated on a regular grid over ``extent`` = (xmin, xmax, ymin, ymax).

    Attributes
    ----------
    extent : tuple of 4 floats
        (xmin, xmax, ymin, ymax).
    values : ndarray of shape (ny, nx)
        f on the grid, row i at y_i.
    contours : dict
        level -> (xs, ys) of its level set, pieces separated by NaN.

    Examples
    --------
    >>> import numpy as np
    >>> from smlengine.grid import decision_frame
    >>> frame = decision_frame(lambda p: p[:, 0] - 0.5, (0.0, 1.0, 0.0, 1.0), resolution=5)
    >>> frame.values.shape, list(frame.contours)
    ((5, 5), [0.0])
    >>> cx, cy = frame.contours[0.0]
    >>> print(np.unique(cx[np.isfinite(cx)]), np.round(cy[np.isfinite(cy)], 2))
    [0.5] [1.   0.75 0.5  0.25 0.  ]
    """

    extent: tuple[float, float, float, float]
    values: np.ndarray  # shape (ny, nx), row i at y_i
    contours: dict[float, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)


#: Finest grid accepted: 4096² points are 268 MB of coordinates already.
MAX_RESOLUTION = 4096
_RESOLUTION = {"resolution": [Interval(Integral, 2, MAX_RESOLUTION)]}


def _check_extent(extent) -> tuple[float, float, float, float]:
    try:
        xmin, xmax, ymin, ymax = (float(v) for v in extent)
    except (TypeError, ValueError):
        raise TypeError("extent must be four numbers (xmin, xmax, ymin, ymax)") from None
    if not all(math.isfinite(v) and abs(v) <= 1e100 for v in (xmin, xmax, ymin, ymax)):
        raise ValueError(f"extent must be finite numbers with |v| <= 1e100; got {(xmin, xmax, ymin, ymax)}")
    if not (xmin <= xmax and ymin <= ymax):
        raise ValueError(f"extent must have xmin <= xmax and ymin <= ymax; got {(xmin, xmax, ymin, ymax)}")
    return xmin, xmax, ymin, ymax


@validate_call(_RESOLUTION)
def grid_points(extent, resolution: int = 140) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(xs, ys, points) of a resolution × resolution grid; points has shape (ny*nx, 2).

    Examples
    --------
    >>> from smlengine.grid import grid_points
    >>> xs, ys, pts = grid_points((0.0, 1.0, 0.0, 2.0), resolution=3)
    >>> print(xs, ys, pts.shape)
    [0.  0.5 1. ] [0. 1. 2.] (9, 2)
    >>> print(pts[:4])
    [[0.  0. ]
     [0.5 0. ]
     [1.  0. ]
     [0.  1. ]]
    """
    xmin, xmax, ymin, ymax = _check_extent(extent)
    resolution = int(resolution)
    xs = np.linspace(xmin, xmax, resolution)
    ys = np.linspace(ymin, ymax, resolution)
    gx, gy = np.meshgrid(xs, ys)
    return xs, ys, np.column_stack([gx.ravel(), gy.ravel()])


@validate_call(_RESOLUTION)
def decision_frame(func: Callable[[np.ndarray], np.ndarray], extent, resolution: int = 140,
                   levels=(0.0,)) -> DecisionFrame:
    """Evaluate ``func`` on a grid and trace the requested level sets (NaN-separated).

    Examples
    --------
    >>> from smlengine.grid import decision_frame
    >>> frame = decision_frame(lambda p: p[:, 0] + p[:, 1] - 1.0, (0.0, 1.0, 0.0, 1.0), resolution=3, levels=(0.0, 5.0))
    >>> print(frame.values)
    [[-1.  -0.5  0. ]
     [-0.5  0.   0.5]
     [ 0.   0.5  1. ]]
    >>> list(frame.contours)
    [0.0]
    """
    from skimage.measure import find_contours  # lazy: keeps application start-up light

    xs, ys, pts = grid_points(extent, resolution)
    values = np.asarray(func(pts), dtype=float).reshape(len(ys), len(xs))
    contours = {}
    finite = np.isfinite(values)
    if finite.all() and values.max() > values.min():
        dx = (xs[-1] - xs[0]) / (len(xs) - 1)
        dy = (ys[-1] - ys[0]) / (len(ys) - 1)
        for level in levels:
            if not (values.min() < level < values.max()):
                continue
            xs_all, ys_all = [], []
            for c in find_contours(values, level):
                xs_all.append(xs[0] + c[:, 1] * dx)
                ys_all.append(ys[0] + c[:, 0] * dy)
                xs_all.append([np.nan])
                ys_all.append([np.nan])
            if xs_all:
                contours[float(level)] = (np.concatenate(xs_all), np.concatenate(ys_all))
    return DecisionFrame(tuple(float(v) for v in extent), values, contours)
