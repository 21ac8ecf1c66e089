"""Framedesk's agent API from Python, on the standard library only.

    >>> import framedesk
    >>> client = framedesk.Client("http://127.0.0.1:3000", "fd_live_…")
    >>> created = client.submit_frame("frame.png", agent_slug="bot", channel_slug="news", date="20261122")
    >>> client.wait(created["id"])["status"]
    'needs_review'
"""

from ._http import RetryPolicy
from .client import SETTLED_STATUSES, Client
from .errors import FramedeskError, ProblemError, WaitTimeout
from .feedback import Moment, MomentAt, MomentRange, MomentRegion, Region, moments_of, regions_of

__all__ = [
    "Client",
    "FramedeskError",
    "Moment",
    "MomentAt",
    "MomentRange",
    "MomentRegion",
    "ProblemError",
    "Region",
    "RetryPolicy",
    "SETTLED_STATUSES",
    "WaitTimeout",
    "moments_of",
    "regions_of",
]
__version__ = "0.1.0"
