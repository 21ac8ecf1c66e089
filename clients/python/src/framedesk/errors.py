"""Errors raised by the Framedesk client."""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence


class FramedeskError(Exception):
    """Base class of every error this package raises."""


class ProblemError(FramedeskError):
    """The API answered with an RFC 9457 problem (``application/problem+json``).

    Attributes:
        status: The HTTP status, e.g. ``415``.
        code: The stable machine-readable code, e.g. ``"unsupported_media_type"``.
            Branch on this, never on ``detail``.
        detail: A human-readable explanation of this occurrence.
        errors: Field errors (``[{"pointer": "/metadata/date", "detail": "..."}]``),
            empty when the problem is not about fields.
        title: The problem type's title.
        request_id: The id the API logged this request under (quote it in bug reports).
        retry_after: Seconds the API asked to wait before retrying, if it said so.
        body: The whole problem document.
    """

    def __init__(
        self,
        status: int,
        code: str,
        detail: str,
        *,
        errors: Optional[Sequence[Mapping[str, str]]] = None,
        title: str = "",
        request_id: Optional[str] = None,
        retry_after: Optional[float] = None,
        body: Optional[Mapping[str, Any]] = None,
    ) -> None:
        super().__init__(f"{code}: {detail}")
        self.status = status
        self.code = code
        self.detail = detail
        self.errors: list[Mapping[str, str]] = list(errors or [])
        self.title = title
        self.request_id = request_id
        self.retry_after = retry_after
        self.body: Mapping[str, Any] = dict(body or {})

    def __str__(self) -> str:
        lines = [f"{self.code}: {self.detail}"]
        lines += [f"  {e.get('pointer', '')}: {e.get('detail', '')}" for e in self.errors]
        return "\n".join(lines)


class WaitTimeout(FramedeskError):
    """``Client.wait`` gave up before the submission reached a settled status.

    Attributes:
        submission: The last state seen.
    """

    def __init__(self, submission: Mapping[str, Any], timeout: float) -> None:
        super().__init__(
            f"submission {submission.get('id')} is still {submission.get('status')} after {timeout:g} s"
        )
        self.submission = submission
