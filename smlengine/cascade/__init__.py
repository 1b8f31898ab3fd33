"""Viola-Jones face detector: boosted Haar stumps arranged in an attentional cascade.

Face detection is classification of square W x W patches (face / not face) under an
enormous class imbalance: a photo has hundreds of thousands of windows and a handful of
faces. The course's method:

* Features: the Haar windows of :mod:`smlengine.haar`, x_ij = sum(grey) - sum(white),
  on a *variance-normalised* patch. With mean m and standard deviation s of the patch
  (read from the integral image and the squared integral image),
  x_ij(normalised) = (x_ij - m * A_j) / s, where A_j is the signed area of feature j.
* Stage j is a discrete AdaBoost classifier of decision stumps h_t(x) = +1 if
  p_t (x_{f_t} - theta_t) > 0 else -1. Each round picks the stump of least weighted error
  err, sets alpha = log((1 - err) / err), multiplies the weights of the misclassified
  patches by exp(alpha) and renormalises. Each feature column is sorted once per stage;
  the error of every threshold of every feature then follows from a cumulative sum of
  the signed weights in that order, D_k = sum_{i <= k} w_(i) y_(i), as
  err_k = min(W_- + D_k, W_+ - D_k) (W_+ / W_- the total weight of faces / non-faces).
* The stage score is f_j(x) = sum_t alpha_t h_t(x); its threshold Theta_j is lowered
  until the stage detection rate DR(f_j) reaches ``stage_detection_rate``; stumps are
  added until also FPR(f_j) <= ``stage_false_positive_rate``.
* Stage j trains on all faces and on the non-face windows that every earlier stage
  wrongly accepts, mined afresh from face-free images. A window is a face only if every
  stage accepts it, so DR(f) = prod_j DR(f_j) and FPR(f) = prod_j FPR(f_j) (stage rates
  measured on the patches that reached the stage).
* Detection slides the window over every position of an image pyramid (factor about
  1.25) and merges overlapping accepted windows into groups; a group of n windows is a
  detection when n > ``min_neighbors`` (:func:`smlengine.detection.group_rectangles`).

References: P. Viola and M. Jones, "Robust real-time face detection", IJCV 57(2), 2004;
discrete AdaBoost as in Hastie, Tibshirani & Friedman, ESL, Algorithm 10.1.

The package: :mod:`.estimator` (:class:`Cascade`), :mod:`.training` (the stages and
:class:`CascadeSnapshot`), :mod:`.miner` (hard negatives), :mod:`.scan` (sliding-window
evaluation, image helpers) and :mod:`.fileformat` (the ``.npz`` file).
"""

from __future__ import annotations

from .estimator import MAX_IMAGE_PIXELS, MIN_SCALE_FACTOR, Cascade, group_boxes
from .fileformat import FORMAT_NAME, FORMAT_VERSION
from .scan import area_resize, level_scales, resize_patch, to_grey_float
from .training import CascadeSnapshot

__all__ = [
    "Cascade",
    "CascadeSnapshot",
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "MAX_IMAGE_PIXELS",
    "MIN_SCALE_FACTOR",
    "area_resize",
    "group_boxes",
    "level_scales",
    "resize_patch",
    "to_grey_float",
]
