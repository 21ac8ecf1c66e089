"""Sending a video's bytes to an upload session's ``upload_url``: basic or tus 1.0."""

from __future__ import annotations

import http.client
import logging
import os
import uuid
from typing import Callable, Iterator, Optional

from ._http import Transport
from .errors import FramedeskError, ProblemError

log = logging.getLogger("framedesk")

TUS_VERSION = "1.0.0"
# A multiple of 256 KiB and at least 5 MiB, as Cloudflare Stream wants for every chunk but the last.
DEFAULT_CHUNK_SIZE = 8 * 1024 * 1024

Progress = Callable[[int, int], None]
"""Called with (bytes sent so far, total bytes)."""


def _file_chunks(path: str, size: int = 1024 * 1024) -> Iterator[bytes]:
    with open(path, "rb") as handle:
        while True:
            chunk = handle.read(size)
            if not chunk:
                return
            yield chunk


def send_basic(
    transport: Transport, upload_url: str, path: str, content_type: str, filename: Optional[str] = None
) -> None:
    """One ``multipart/form-data`` POST with the file in the field ``file``, streamed from disk.

    The one-time token in ``upload_url`` is the credential: no API key is sent.
    """
    boundary = f"framedesk-{uuid.uuid4().hex}"
    name = (filename or os.path.basename(path)).replace('"', "_").replace("\r", "_").replace("\n", "_")
    head = (
        f"--{boundary}\r\n"
        f'Content-Disposition: form-data; name="file"; filename="{name}"\r\n'
        f"Content-Type: {content_type}\r\n\r\n"
    ).encode("utf-8")
    tail = f"\r\n--{boundary}--\r\n".encode("ascii")
    length = len(head) + os.path.getsize(path) + len(tail)

    def body() -> Iterator[bytes]:
        yield head
        yield from _file_chunks(path)
        yield tail

    transport.request(
        "POST",
        upload_url,
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}", "Content-Length": str(length)},
        body=body,
    )


def tus_offset(transport: Transport, upload_url: str) -> int:
    """Where the server's copy ends (``HEAD`` → ``Upload-Offset``)."""
    answer = transport.request("HEAD", upload_url, headers={"Tus-Resumable": TUS_VERSION})
    offset = answer.headers.get("upload-offset")
    if offset is None or not offset.isdigit():
        raise FramedeskError(f"HEAD {upload_url} answered without an Upload-Offset")
    return int(offset)


def send_tus(
    transport: Transport,
    upload_url: str,
    path: str,
    *,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    max_resumes: int = 10,
    on_progress: Optional[Progress] = None,
) -> int:
    """Sends the file with tus 1.0, resuming from the server's offset after an interruption.

    Every PATCH starts at the offset the server confirmed; when one fails (connection cut,
    time-out, 5xx, 409 for an offset mismatch, or 423 while a cut request still holds the upload) the server is asked where its copy ends
    (``HEAD``) and the upload goes on from there. Starting again from an earlier process works the
    same way: call this with the same ``upload_url``. Returns the number of resumes.
    """
    total = os.path.getsize(path)
    resumes = 0
    offset = tus_offset(transport, upload_url)
    with open(path, "rb") as handle:
        while offset < total:
            handle.seek(offset)
            chunk = handle.read(chunk_size)
            try:
                answer = transport.request(
                    "PATCH",
                    upload_url,
                    headers={
                        "Tus-Resumable": TUS_VERSION,
                        "Content-Type": "application/offset+octet-stream",
                        "Upload-Offset": str(offset),
                        "Content-Length": str(len(chunk)),
                    },
                    body=chunk,
                    retry=False,
                )
            except (OSError, http.client.HTTPException, ProblemError) as error:
                resumable = not isinstance(error, ProblemError) or error.status >= 500 or error.status in (409, 423)
                resumes += 1
                if not resumable or resumes > max_resumes:
                    raise
                log.info("tus PATCH at offset %d failed (%s); asking the server where to resume", offset, error)
                transport.sleep(transport.retry.backoff(min(resumes, 5)))
                offset = tus_offset(transport, upload_url)
                log.info("tus upload resumes at offset %d of %d", offset, total)
                continue
            confirmed = answer.headers.get("upload-offset")
            offset = int(confirmed) if confirmed and confirmed.isdigit() else offset + len(chunk)
            if on_progress:
                on_progress(offset, total)
    return resumes
