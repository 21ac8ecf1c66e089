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

__all__ = ["Client", "FramedeskError", "ProblemError", "RetryPolicy", "SETTLED_STATUSES", "WaitTimeout"]
__version__ = "0.1.0"
