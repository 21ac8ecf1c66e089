"""HTTP with retries, on the standard library only (internal)."""

from __future__ import annotations

import http.client
import json
import random
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Optional, Union

from .errors import ProblemError

Body = Union[bytes, Callable[[], Iterable[bytes]], None]
"""Bytes, or a factory of an iterable of chunks (called again on every attempt), or nothing."""

# Answers that say "the same request may succeed later"; a 5xx may also mean the first try did
# work, which is why every create carries an Idempotency-Key that the retries reuse.
# 423 upload_locked: a resumable upload still locked by a request that was cut (Retry-After says when).
_RETRYABLE_STATUS = {423, 429, 500, 502, 503, 504}


@dataclass(frozen=True)
class Response:
    """A 2xx answer."""

    status: int
    headers: Mapping[str, str]
    """Header names in lower case."""
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently a call is retried.

    Attributes:
        attempts: Tries per call, the first included.
        base_delay: First back-off step in seconds; doubles per attempt, with jitter.
        max_delay: Cap of one back-off step.
        max_retry_after: A ``Retry-After`` longer than this is not waited out.
    """

    attempts: int = 5
    base_delay: float = 0.25
    max_delay: float = 10.0
    max_retry_after: float = 60.0

    def backoff(self, attempt: int) -> float:
        step = min(self.max_delay, self.base_delay * 2 ** (attempt - 1))
        return step / 2 + random.random() * step / 2


def problem_from(status: int, headers: Mapping[str, str], body: bytes) -> ProblemError:
    """The ProblemError for a non-2xx answer (problem+json, or anything else a proxy sends)."""
    retry_after: Optional[float] = None
    raw_retry = headers.get("retry-after")
    if raw_retry is not None:
        try:
            retry_after = float(raw_retry)
        except ValueError:
            retry_after = None
    document: Any = None
    try:
        document = json.loads(body) if body else None
    except ValueError:
        document = None
    if isinstance(document, dict) and isinstance(document.get("code"), str):
        return ProblemError(
            int(document.get("status", status)),
            document["code"],
            str(document.get("detail", "")),
            errors=document.get("errors") or [],
            title=str(document.get("title", "")),
            request_id=document.get("request_id"),
            retry_after=retry_after,
            body=document,
        )
    text = body[:200].decode("utf-8", "replace").strip()
    return ProblemError(status, f"http_{status}", text or f"HTTP {status}", retry_after=retry_after)


class Transport:
    """Sends requests and retries network errors, 423, 429 and 5xx (the caller keeps the same key)."""

    def __init__(self, *, timeout: float, retry: RetryPolicy, user_agent: str) -> None:
        self.timeout = timeout
        self.retry = retry
        self.user_agent = user_agent
        self.sleep: Callable[[float], None] = time.sleep

    def request(
        self,
        method: str,
        url: str,
        *,
        headers: Optional[Mapping[str, str]] = None,
        body: Body = None,
        retry: bool = True,
    ) -> Response:
        attempts = self.retry.attempts if retry else 1
        for attempt in range(1, attempts + 1):
            try:
                return self._once(method, url, headers or {}, body)
            except ProblemError as problem:
                retryable = problem.status in _RETRYABLE_STATUS or problem.code == "idempotency_key_in_use"
                if not retryable or attempt == attempts:
                    raise
                wait = problem.retry_after if problem.retry_after is not None else self.retry.backoff(attempt)
                if wait > self.retry.max_retry_after:
                    raise
                self.sleep(wait)
            except (OSError, http.client.HTTPException):
                # Connection refused or reset, time-out, a cut-off answer: the request may or may
                # not have been done; the retry carries the same Idempotency-Key.
                if attempt == attempts:
                    raise
                self.sleep(self.retry.backoff(attempt))
        raise AssertionError("unreachable")

    def _once(self, method: str, url: str, headers: Mapping[str, str], body: Body) -> Response:
        data: Any = body() if callable(body) else body
        request = urllib.request.Request(url, data=data, method=method)
        request.add_header("User-Agent", self.user_agent)
        for name, value in headers.items():
            request.add_header(name, value)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                return Response(answer.status, _lower(answer.headers.items()), answer.read())
        except urllib.error.HTTPError as error:
            with error:
                raise problem_from(error.code, _lower(error.headers.items()), error.read()) from None


def _lower(items: Iterable[tuple[str, str]]) -> dict[str, str]:
    return {name.lower(): value for name, value in items}
