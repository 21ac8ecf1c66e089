"""The shapes of a decision's feedback, as the API returns them (docs/api.md, docs/video.md).

The client returns plain dicts; these types describe them for type checkers.
"""

from __future__ import annotations

from typing import Any, List, Mapping, TypedDict, Union

__all__ = ["Moment", "MomentAt", "MomentRange", "MomentRegion", "Region", "moments_of", "regions_of"]


class Region(TypedDict):
    """A box on an image a rejection points at: fractions (0-1) of the original, origin top left."""

    x: float
    y: float
    width: float
    height: float
    label: str


class MomentRegion(TypedDict):
    """A box on a video's frame a time-coded item points at: fractions (0-1), origin top left."""

    x: float
    y: float
    width: float
    height: float


class _MomentAtFields(TypedDict):
    at: float
    label: str


class MomentAt(_MomentAtFields, total=False):
    """A moment of a video: ``at`` seconds from its start; ``region`` when one was drawn."""

    region: MomentRegion


class _MomentRangeFields(TypedDict):
    start: float
    end: float
    label: str


class MomentRange(_MomentRangeFields, total=False):
    """A stretch of a video: from ``start`` to ``end`` seconds; ``region`` when one was drawn."""

    region: MomentRegion


Moment = Union[MomentAt, MomentRange]
"""A time-coded feedback item on a video: ``at`` or ``start``/``end``, a label, maybe a region."""


def _review(record: Mapping[str, Any]) -> Mapping[str, Any]:
    review = record.get("review", record)
    return review if isinstance(review, Mapping) else {}


def moments_of(record: Mapping[str, Any]) -> List[Moment]:
    """The time-coded items of a submission (``get_submission``) or of one of ``get_feedback``'s
    ``rejections``; empty when there are none."""
    return list(_review(record).get("moments") or [])


def regions_of(record: Mapping[str, Any]) -> List[Region]:
    """The regions of a submission or of one of ``get_feedback``'s ``rejections``."""
    return list(_review(record).get("regions") or [])
