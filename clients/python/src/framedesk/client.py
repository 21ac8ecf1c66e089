"""The Framedesk agent API client."""

from __future__ import annotations

import json
import mimetypes
import os
import time
import urllib.parse
import uuid
from pathlib import Path
from typing import Any, Dict, Iterator, Optional, Union

from ._http import RetryPolicy, Transport
from .errors import ProblemError, WaitTimeout
from .uploads import DEFAULT_CHUNK_SIZE, Progress, send_basic, send_tus

__all__ = ["Client", "SETTLED_STATUSES"]

Json = Dict[str, Any]
ImageInput = Union[bytes, bytearray, str, "os.PathLike[str]"]

SETTLED_STATUSES = frozenset({"needs_review", "promoted", "rejected", "failed"})
"""Statuses ``wait`` stops at: ready for people (needs_review) or final."""

_VIDEO_TYPES = {".mp4": "video/mp4", ".mov": "video/quicktime", ".webm": "video/webm"}


def _query(**params: Optional[object]) -> Dict[str, str]:
    """The query parameters given (``None`` ones left out), in order, as strings."""
    return {name: str(value) for name, value in params.items() if value is not None}


class Client:
    """A client of one Framedesk API for one agent.

    Every create makes its own ``Idempotency-Key`` (or takes yours) and reuses it when it retries
    a network error, 429 or 5xx, so a retry never submits twice. Problems raise
    :class:`framedesk.ProblemError`.

    Args:
        base_url: The API's address, e.g. ``"http://127.0.0.1:3000"``.
        api_key: The agent's API key (``fd_live_…``), sent as ``Authorization: Bearer``.
        timeout: Seconds one HTTP request may take.
        retry: How often and how patiently to retry.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = 60.0,
        retry: Optional[RetryPolicy] = None,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must be an http(s) address, not {base_url!r}")
        if not api_key:
            raise ValueError("api_key is required")
        self.base_url = base_url.rstrip("/")
        self._auth = {"Authorization": f"Bearer {api_key}"}
        self._transport = Transport(timeout=timeout, retry=retry or RetryPolicy(), user_agent="framedesk-python/0.1")

    # -- frames ---------------------------------------------------------------------------------

    def submit_frame(
        self,
        image: ImageInput,
        *,
        agent_slug: str,
        channel_slug: str,
        date: str,
        title: Optional[str] = None,
        idempotency_key: Optional[str] = None,
        **metadata: Any,
    ) -> Json:
        """Submits a PNG frame; returns the created submission (status ``received``).

        Args:
            image: The PNG's bytes, or the path of a PNG file.
            agent_slug: This key's agent.
            channel_slug: A channel the agent may submit to.
            date: The frame day, ``YYYYMMDD``.
            title: Optional title.
            idempotency_key: A UUID to reuse when you retry this call yourself later;
                one is made otherwise (and reused by this call's own retries).
            **metadata: Further metadata fields: ``caption``, ``click_zones``, ``external_ref``,
                ``revision_of`` (the ``sub_…`` id of a rejected or promoted frame of yours in the
                same channel that this one replaces).
        """
        data = bytes(image) if isinstance(image, (bytes, bytearray)) else Path(image).read_bytes()
        fields: Json = {"agent_slug": agent_slug, "channel_slug": channel_slug, "date": date, **metadata}
        if title is not None:
            fields["title"] = title
        boundary = f"framedesk-{uuid.uuid4().hex}"
        body = b"".join(
            [
                f'--{boundary}\r\nContent-Disposition: form-data; name="metadata"\r\n'.encode(),
                b"Content-Type: application/json\r\n\r\n",
                json.dumps(fields).encode("utf-8"),
                f'\r\n--{boundary}\r\nContent-Disposition: form-data; name="image"; filename="frame.png"\r\n'.encode(),
                b"Content-Type: image/png\r\n\r\n",
                data,
                f"\r\n--{boundary}--\r\n".encode(),
            ]
        )
        return self._call(
            "POST",
            "/v1/frame-submissions",
            body=body,
            headers={"Content-Type": f"multipart/form-data; boundary={boundary}"},
            idempotency_key=idempotency_key or str(uuid.uuid4()),
        )

    def get_submission(self, submission_id: str) -> Json:
        """One of this agent's submissions (another agent's is ``not_found``)."""
        return self._call("GET", f"/v1/frame-submissions/{urllib.parse.quote(submission_id, safe='')}")

    def wait(self, submission_id: str, *, timeout: float = 300.0, interval: float = 1.0) -> Json:
        """Polls until the submission is ready for review or final (see ``SETTLED_STATUSES``).

        Raises:
            WaitTimeout: still in progress after ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        while True:
            submission = self.get_submission(submission_id)
            if submission["status"] in SETTLED_STATUSES:
                return submission
            if time.monotonic() >= deadline:
                raise WaitTimeout(submission, timeout)
            time.sleep(min(interval, max(0.0, deadline - time.monotonic())))

    def list_submissions(
        self,
        *,
        channel_slug: Optional[str] = None,
        status: Optional[str] = None,
        page_size: Optional[int] = None,
    ) -> Iterator[Json]:
        """This agent's submissions, newest first, fetching pages as you iterate."""
        query = _query(channel_slug=channel_slug, status=status, limit=page_size)
        while True:
            page = self._call("GET", "/v1/frame-submissions?" + urllib.parse.urlencode(query))
            yield from page["data"]
            if not page.get("has_more") or not page.get("next_cursor"):
                return
            query["cursor"] = page["next_cursor"]

    def get_feedback(
        self,
        agent_slug: str,
        *,
        since: Optional[str] = None,
        cursor: Optional[str] = None,
        limit: Optional[int] = None,
    ) -> Json:
        """This agent's record (``GET /v1/agents/{agent_slug}/feedback``): counts by status, shares,
        top reasons, median seconds to a decision, and one page of its latest rejections with
        their notes and regions (``next_cursor`` for the next page).

        Args:
            agent_slug: This key's agent (any other is ``not_found``).
            since: An ISO 8601 date or timestamp; 30 days ago by default.
            cursor: ``next_cursor`` of the previous answer.
            limit: Rejections per page (1–100).
        """
        query = _query(since=since, cursor=cursor, limit=limit)
        path = f"/v1/agents/{urllib.parse.quote(agent_slug, safe='')}/feedback"
        return self._call("GET", path + ("?" + urllib.parse.urlencode(query) if query else ""))

    # -- videos ---------------------------------------------------------------------------------

    def create_media_upload(
        self,
        *,
        agent_slug: str,
        channel_slug: str,
        filename: str,
        content_type: str,
        byte_size: int,
        date: Optional[str] = None,
        metadata: Optional[Json] = None,
        idempotency_key: Optional[str] = None,
    ) -> Json:
        """Opens a video upload session (and its submission); see ``upload_video`` to send the bytes too."""
        request: Json = {
            "agent_slug": agent_slug,
            "channel_slug": channel_slug,
            "media_type": "video",
            "filename": filename,
            "content_type": content_type,
            "byte_size": byte_size,
        }
        if date is not None:
            request["date"] = date
        if metadata:
            request["metadata"] = metadata
        return self._call(
            "POST",
            "/v1/media-uploads",
            body=json.dumps(request).encode("utf-8"),
            headers={"Content-Type": "application/json"},
            idempotency_key=idempotency_key or str(uuid.uuid4()),
        )

    def send_video(
        self,
        upload: Json,
        path: Union[str, "os.PathLike[str]"],
        *,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
        on_progress: Optional[Progress] = None,
    ) -> int:
        """Sends the file to an existing session's ``upload_url``, by its ``upload_protocol``.

        With tus this resumes where the server's copy ends, so it also continues an upload an
        earlier process started. Returns how many times a tus upload resumed after an interruption.
        """
        file = os.fspath(path)
        if upload.get("upload_protocol") == "tus":
            return send_tus(self._transport, upload["upload_url"], file, chunk_size=chunk_size, on_progress=on_progress)
        send_basic(self._transport, upload["upload_url"], file, upload["content_type"], upload.get("filename"))
        if on_progress:
            size = os.path.getsize(file)
            on_progress(size, size)
        return 0

    def upload_video(
        self,
        path: Union[str, "os.PathLike[str]"],
        *,
        agent_slug: str,
        channel_slug: str,
        content_type: Optional[str] = None,
        date: Optional[str] = None,
        metadata: Optional[Json] = None,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
        on_progress: Optional[Progress] = None,
    ) -> Json:
        """Creates the upload session and sends the file (basic, or tus with resume).

        Returns the media upload as the API reports it once the bytes are in; its
        ``submission_id`` can be followed with ``wait``.
        """
        file = os.fspath(path)
        kind = content_type or _VIDEO_TYPES.get(Path(file).suffix.lower()) or mimetypes.guess_type(file)[0]
        if not kind:
            raise ValueError(f"cannot tell the video type of {file}; pass content_type")
        upload = self.create_media_upload(
            agent_slug=agent_slug,
            channel_slug=channel_slug,
            filename=Path(file).name,
            content_type=kind,
            byte_size=os.path.getsize(file),
            date=date,
            metadata=metadata,
        )
        self.send_video(upload, file, chunk_size=chunk_size, on_progress=on_progress)
        return self.get_media_upload(upload["id"])

    def get_media_upload(self, upload_id: str) -> Json:
        """An upload session of this agent, with its status."""
        return self._call("GET", f"/v1/media-uploads/{urllib.parse.quote(upload_id, safe='')}")

    # -- plumbing -------------------------------------------------------------------------------

    def _call(
        self,
        method: str,
        path: str,
        *,
        body: Optional[bytes] = None,
        headers: Optional[Dict[str, str]] = None,
        idempotency_key: Optional[str] = None,
    ) -> Json:
        all_headers = {**self._auth, "Accept": "application/json", **(headers or {})}
        if idempotency_key:
            all_headers["Idempotency-Key"] = idempotency_key
        answer = self._transport.request(method, self.base_url + path, headers=all_headers, body=body)
        document = answer.json()
        if not isinstance(document, dict):
            raise ProblemError(answer.status, "invalid_response", f"{method} {path} did not answer a JSON object")
        return document
