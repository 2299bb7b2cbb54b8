"""NumPy semantics of the data-dependent ops (``relay.nonzero``,
``relay.compress``, ``relay.unique``,
``relay.non_max_suppression``) and their shape functions. The ops' shape operand is
checked against the shape the values give: a wrong one is a bug in
whatever made it."""

from __future__ import annotations

import numpy as np


def nonzero(data: np.ndarray) -> np.ndarray:
    """The ``rank x count`` positions of the nonzero elements, row-major."""
    return np.stack(np.nonzero(data)).astype(np.int64).reshape(data.ndim, -1)


def compress(data: np.ndarray, condition: np.ndarray, axis: int | None = None) -> np.ndarray:
    """The slices (elements, without ``axis``) whose condition is true; a
    condition shorter than the axis leaves the rest out."""
    extent = data.size if axis is None else data.shape[axis]
    return np.compress(condition[:extent].astype(bool), data, axis=axis)


def unique(data: np.ndarray, axis: int | None = None, is_sorted: bool = True) -> list[np.ndarray]:
    """ONNX ``Unique``: the distinct slices (sorted, or in order of first
    occurrence), their first positions, each slice's index among them, and
    their counts."""
    y, indices, inverse, counts = np.unique(
        data, return_index=True, return_inverse=True, return_counts=True, axis=axis
    )
    inverse = inverse.reshape(-1)
    if not is_sorted:
        order = np.argsort(indices, kind="stable")
        y = np.take(y, order, axis=0 if axis is None else axis)
        indices, counts = indices[order], counts[order]
        inverse = np.argsort(order)[inverse]
    return [y, indices.astype(np.int64), inverse.astype(np.int64), counts.astype(np.int64)]


def _unique_checked(ins: list[np.ndarray], attrs: dict) -> list[np.ndarray]:
    results = unique(ins[0], attrs.get("axis"), attrs.get("is_sorted", True))
    return [_checked(r, s, "relay.unique") for r, s in zip(results, ins[1:], strict=True)]


def _suppresses(a: np.ndarray, b: np.ndarray, center_point_box: bool, threshold: float) -> bool:
    """Whether boxes ``a`` and ``b`` overlap with an IoU above ``threshold``."""
    if center_point_box:
        ax0, ax1 = a[0] - a[2] / 2, a[0] + a[2] / 2
        ay0, ay1 = a[1] - a[3] / 2, a[1] + a[3] / 2
        bx0, bx1 = b[0] - b[2] / 2, b[0] + b[2] / 2
        by0, by1 = b[1] - b[3] / 2, b[1] + b[3] / 2
    else:
        ay0, ay1 = sorted((a[0], a[2]))
        ax0, ax1 = sorted((a[1], a[3]))
        by0, by1 = sorted((b[0], b[2]))
        bx0, bx1 = sorted((b[1], b[3]))
    width = min(ax1, bx1) - max(ax0, bx0)
    height = min(ay1, by1) - max(ay0, by0)
    if width <= 0 or height <= 0:
        return False
    inter = width * height
    area_a, area_b = (ax1 - ax0) * (ay1 - ay0), (bx1 - bx0) * (by1 - by0)
    union = area_a + area_b - inter
    if area_a <= 0 or area_b <= 0 or union <= 0:
        return False
    return bool(inter / union > threshold)


def non_max_suppression(
    boxes: np.ndarray,
    scores: np.ndarray,
    max_output: np.ndarray,
    iou_threshold: np.ndarray,
    score_threshold: np.ndarray,
    center_point_box: bool = False,
    has_score_threshold: bool = True,
) -> np.ndarray:
    """ONNX ``NonMaxSuppression``: ``selected x 3`` rows ``(batch, class,
    box)``, per batch and class in order of descending score."""
    limit = int(max_output.reshape(-1)[0])
    iou = float(iou_threshold.reshape(-1)[0])
    floor = float(score_threshold.reshape(-1)[0])
    rows: list[tuple[int, int, int]] = []
    for b in range(boxes.shape[0]):
        for c in range(scores.shape[1]):
            s = scores[b, c]
            order = [
                i
                for i in sorted(range(len(s)), key=lambda i: (-s[i], i))
                if not has_score_threshold or s[i] > floor
            ]
            kept: list[int] = []
            for i in order:
                if len(kept) >= limit:
                    break
                if not any(
                    _suppresses(boxes[b, k], boxes[b, i], center_point_box, iou) for k in kept
                ):
                    kept.append(i)
            rows += [(b, c, i) for i in kept]
    return np.array(rows, np.int64).reshape(-1, 3)


def arange(start: np.ndarray, limit: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """ONNX ``Range``: ``start + i * delta`` while below ``limit`` (above,
    for a negative ``delta``)."""
    s, l, d = (np.asarray(v).reshape(()) for v in (start, limit, delta))
    n = max(int(np.ceil((float(l) - float(s)) / float(d))), 0)
    return (s + np.arange(n).astype(s.dtype) * d).astype(s.dtype)


def reshape_shape(data: np.ndarray, newshape: np.ndarray, allowzero: bool = False) -> list[int]:
    """ONNX ``Reshape``'s shape: 0 copies the data's extent unless ``allowzero``, -1 infers."""
    dims = [int(v) for v in newshape]
    if not allowzero:
        dims = [data.shape[k] if v == 0 else v for k, v in enumerate(dims)]
    known = int(np.prod([v for v in dims if v != -1], dtype=np.int64))
    return [(data.size // known if known else 0) if v == -1 else v for v in dims]


def _dyn_topk(data: np.ndarray, k: int, axis: int, is_ascend: bool) -> list[np.ndarray]:
    from xtvm.reference.relay.algorithm import topk

    return topk(data, k, axis, is_ascend)


def _topk_shape(data: np.ndarray, k: np.ndarray, axis: int) -> np.ndarray:
    axis %= data.ndim
    k = int(k.reshape(-1)[0])
    return np.array([k if a == axis else d for a, d in enumerate(data.shape)], np.int64)


def _resize_scales(data: np.ndarray, given: np.ndarray, attrs: dict) -> list[float]:
    """Each resized axis' scale (see ``relay.dyn.resize``)."""
    axes = list(attrs["axes"])
    if attrs["scales_given"]:
        return [float(v) for v in given]
    ratios = [float(v) / data.shape[a] if data.shape[a] else 1.0 for v, a in zip(given, axes)]
    policy = attrs["policy"]
    if policy == "stretch":
        return ratios
    return [(min if policy == "not_larger" else max)(ratios)] * len(axes)


def resize_shape(data: np.ndarray, given: np.ndarray, attrs: dict) -> np.ndarray:
    shape = list(data.shape)
    scales = _resize_scales(data, given, attrs)
    for k, a in enumerate(attrs["axes"]):
        if attrs["scales_given"]:
            shape[a] = int(shape[a] * scales[k])
        elif attrs["policy"] == "stretch":
            shape[a] = int(given[k])
        else:
            shape[a] = int(scales[k] * shape[a] + 0.5)
    return np.array(shape, np.int64)


def dyn_resize(ins: list[np.ndarray], attrs: dict) -> np.ndarray:
    """``relay.dyn.resize`` through the static resize reference (at most
    three axes, given to it in ascending order as a layout's D, H, W)."""
    from xtvm.reference.relay.image import resize

    data, given, roi, shape = ins
    axes = list(attrs["axes"])
    order = sorted(range(len(axes)), key=lambda k: axes[k])
    scales = _resize_scales(data, given, attrs)
    count = len(axes)
    letters = iter("DHW"[3 - count :])
    layout = "".join(next(letters) if a in axes else "C" for a in range(data.ndim))
    static = {k: attrs[k] for k in ("method", "coordinate_transformation_mode", "rounding_method")}
    return resize(
        data,
        [int(shape[axes[k]]) for k in order],
        layout=layout,
        scales=[scales[k] for k in order],
        roi=[float(roi[k]) for k in order] + [float(roi[count + k]) for k in order],
        cubic_alpha=attrs["cubic_alpha"],
        cubic_exclude=attrs["cubic_exclude"],
        extrapolation_value=attrs["extrapolation_value"],
        antialias=False,
        **static,
    )


def _checked(result: np.ndarray, shape: np.ndarray, name: str) -> np.ndarray:
    if tuple(int(d) for d in shape) != result.shape:
        raise ValueError(
            f"{name}: the shape operand {list(shape)} is not the result's {result.shape}"
        )
    return result


REFERENCES = {
    "relay.dyn.resize_shape": lambda ins, attrs: resize_shape(ins[0], ins[1], attrs),
    "relay.dyn.resize": lambda ins, attrs: _checked(
        dyn_resize(ins, attrs), ins[3], "relay.dyn.resize"
    ),
    "relay.dyn.arange_shape": lambda ins, attrs: np.array([arange(*ins).size], np.int64),
    "relay.dyn.arange": lambda ins, attrs: (
        ins[0].reshape(()) + np.arange(int(ins[2][0])).astype(ins[0].dtype) * ins[1].reshape(())
    ).astype(ins[0].dtype),
    "relay.dyn.full": lambda ins, attrs: np.full(tuple(int(v) for v in ins[1]), ins[0].reshape(())),
    "relay.dyn.broadcast_to_shape": lambda ins, attrs: np.array(
        np.broadcast_shapes(ins[0].shape, tuple(int(v) for v in ins[1])), np.int64
    ),
    "relay.dyn.broadcast_to": lambda ins, attrs: np.broadcast_to(
        ins[0], tuple(int(v) for v in ins[1])
    ).copy(),
    "relay.dyn.tile_shape": lambda ins, attrs: np.array(ins[0].shape, np.int64) * ins[1],
    "relay.dyn.tile": lambda ins, attrs: np.tile(
        ins[0], [int(v) // d if d else 1 for v, d in zip(ins[1], ins[0].shape)]
    ),
    "relay.dyn.reshape_shape": lambda ins, attrs: np.array(reshape_shape(*ins, **attrs), np.int64),
    "relay.dyn.reshape": lambda ins, attrs: ins[0].reshape(tuple(int(v) for v in ins[1])),
    "relay.dyn.topk_shape": lambda ins, attrs: [_topk_shape(ins[0], ins[1], attrs["axis"])] * 2,
    "relay.dyn.topk": lambda ins, attrs: _dyn_topk(
        ins[0], int(ins[1][attrs["axis"] % ins[0].ndim]), attrs["axis"], attrs["is_ascend"]
    ),
    "relay.non_max_suppression_shape": lambda ins, attrs: np.array(
        non_max_suppression(*ins, **attrs).shape, np.int64
    ),
    "relay.non_max_suppression": lambda ins, attrs: _checked(
        non_max_suppression(*ins[:5], **attrs), ins[5], "relay.non_max_suppression"
    ),
    "relay.unique_shape": lambda ins, attrs: [
        np.array(r.shape, np.int64)
        for r in unique(ins[0], attrs.get("axis"), attrs.get("is_sorted", True))
    ],
    "relay.unique": _unique_checked,
    "relay.nonzero_shape": lambda ins, attrs: np.array(nonzero(ins[0]).shape, np.int64),
    "relay.nonzero": lambda ins, attrs: _checked(nonzero(ins[0]), ins[1], "relay.nonzero"),
    "relay.compress_shape": lambda ins, attrs: np.array(
        compress(ins[0], ins[1], attrs.get("axis")).shape, np.int64
    ),
    "relay.compress": lambda ins, attrs: _checked(
        compress(ins[0], ins[1], attrs.get("axis")), ins[2], "relay.compress"
    ),
}
