"""The Python client against a running Framedesk API (npm test starts one: apps/api/test/agents.int.spec.ts).

Environment: FRAMEDESK_TEST_API_URL, FRAMEDESK_TEST_API_KEY, FRAMEDESK_TEST_AGENT,
FRAMEDESK_TEST_CHANNEL, FRAMEDESK_TEST_VIDEO_BASIC and FRAMEDESK_TEST_VIDEO_TUS (a clip at most
and one above media.small_video_max_bytes). Without them the tests are skipped, unless
FRAMEDESK_TEST_REQUIRED is set.
"""

from __future__ import annotations

import datetime
import json
import os
import struct
import time
import unittest
import urllib.parse
import urllib.request
import uuid
import zlib

import framedesk

from .proxy import CuttingProxy

ENV = os.environ
NAMES = ["API_URL", "API_KEY", "AGENT", "CHANNEL", "VIDEO_BASIC", "VIDEO_TUS"]
MISSING = [name for name in NAMES if not ENV.get(f"FRAMEDESK_TEST_{name}")]


def setUpModule() -> None:
    if MISSING and ENV.get("FRAMEDESK_TEST_REQUIRED"):
        raise RuntimeError(f"missing FRAMEDESK_TEST_{', FRAMEDESK_TEST_'.join(MISSING)}")


def make_png(width: int, height: int, shade: int = 0) -> bytes:
    """A valid RGB PNG, made with zlib alone."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(
        b"\x00" + b"".join(bytes(((x * 7 + shade) % 256, (y * 5) % 256, 128)) for x in range(width))
        for y in range(height)
    )
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


@unittest.skipIf(MISSING, f"needs a test API (FRAMEDESK_TEST_{', FRAMEDESK_TEST_'.join(MISSING)})")
class ClientTest(unittest.TestCase):
    def setUp(self) -> None:
        self.client = framedesk.Client(ENV["FRAMEDESK_TEST_API_URL"], ENV["FRAMEDESK_TEST_API_KEY"])
        self.who = {"agent_slug": ENV["FRAMEDESK_TEST_AGENT"], "channel_slug": ENV["FRAMEDESK_TEST_CHANNEL"]}

    @staticmethod
    def headers_of(head: bytes) -> list[tuple[str, str]]:
        lines = head.decode("latin-1").split("\r\n")[1:]
        return [(name.strip().lower(), value.strip()) for name, _, value in (line.partition(":") for line in lines)]

    def test_submit_frame_then_wait_until_needs_review(self) -> None:
        ref = uuid.uuid4().hex
        created = self.client.submit_frame(
            make_png(48, 32), **self.who, date="20261122", title="From Python", external_ref=ref
        )
        self.assertEqual(created["status"], "received")
        self.assertTrue(created["id"].startswith("sub_"))
        done = self.client.wait(created["id"], timeout=60, interval=0.2)
        self.assertEqual(done["status"], "needs_review")
        self.assertEqual(done["title"], "From Python")
        listed = [s["id"] for s in self.client.list_submissions(status="needs_review", page_size=1)]
        self.assertIn(created["id"], listed)

    def test_problems_raise_problem_error_with_code_and_field_errors(self) -> None:
        with self.assertRaises(framedesk.ProblemError) as gif:
            self.client.submit_frame(b"GIF89a not a png", **self.who, date="20261122")
        self.assertEqual((gif.exception.status, gif.exception.code), (415, "unsupported_media_type"))
        self.assertIn("PNG", gif.exception.detail)

        with self.assertRaises(framedesk.ProblemError) as invalid:
            self.client.submit_frame(make_png(8, 8), **self.who, date="2026-11-22")
        self.assertEqual((invalid.exception.status, invalid.exception.code), (422, "validation_failed"))
        self.assertEqual([e["pointer"] for e in invalid.exception.errors], ["/metadata/date"])

        with self.assertRaises(framedesk.ProblemError) as missing:
            self.client.get_submission("sub_0000000000000000000000")
        self.assertEqual(missing.exception.code, "not_found")

        stranger = framedesk.Client(ENV["FRAMEDESK_TEST_API_URL"], "fd_live_" + "x" * 33)
        with self.assertRaises(framedesk.ProblemError) as unauthenticated:
            next(stranger.list_submissions())
        self.assertEqual((unauthenticated.exception.status, unauthenticated.exception.code), (401, "unauthenticated"))

    def test_get_feedback_returns_the_endpoints_record(self) -> None:
        agent = self.who["agent_slug"]
        # `since` may reach 365 days back at most: a date a month ago, whatever the day.
        since = (datetime.date.today() - datetime.timedelta(days=30)).isoformat()
        request = urllib.request.Request(
            f"{ENV['FRAMEDESK_TEST_API_URL']}/v1/agents/{agent}/feedback?since={since}&limit=5",
            headers={"Authorization": f"Bearer {ENV['FRAMEDESK_TEST_API_KEY']}"},
        )
        # The other tests' frames move on (processing -> needs_review) while this one reads: read
        # both until they describe the same moment, a few times at most.
        for _ in range(10):
            record = self.client.get_feedback(agent, since=since, limit=5)
            with urllib.request.urlopen(request) as answer:  # noqa: S310 - the test API's own address
                raw = json.loads(answer.read())
            if record == raw:
                break
            time.sleep(0.5)
        self.assertEqual(record, raw)
        self.assertEqual(record["agent_slug"], agent)
        self.assertEqual(record["since"], f"{since}T00:00:00.000Z")
        self.assertEqual(record["total"], sum(record["counts"].values()))
        with self.assertRaises(framedesk.ProblemError) as other:
            self.client.get_feedback("someone-else")
        self.assertEqual((other.exception.status, other.exception.code), (404, "not_found"))

    def test_a_lost_answer_is_retried_with_the_same_idempotency_key(self) -> None:
        api = urllib.parse.urlsplit(ENV["FRAMEDESK_TEST_API_URL"])
        proxy = CuttingProxy((api.hostname or "127.0.0.1", api.port or 80), b"POST")
        self.addCleanup(proxy.close)
        client = framedesk.Client(proxy.url, ENV["FRAMEDESK_TEST_API_KEY"])
        client._transport.sleep = lambda _seconds: None  # noqa: SLF001 - no back-off wait in a test
        ref = uuid.uuid4().hex
        created = client.submit_frame(make_png(16, 16, shade=3), **self.who, date="20261122", external_ref=ref)
        self.assertEqual(proxy.cuts, 1)
        self.assertEqual(sum(1 for line in proxy.requests if line.startswith(b"POST ")), 2)
        # The first POST did its work; the retry was answered from the idempotency record.
        same = [s["id"] for s in self.client.list_submissions() if s.get("external_ref") == ref]
        self.assertEqual(same, [created["id"]])

    def test_upload_video_basic(self) -> None:
        upload = self.client.upload_video(ENV["FRAMEDESK_TEST_VIDEO_BASIC"], **self.who, metadata={"title": "clip"})
        self.assertEqual(upload["upload_protocol"], "basic")
        self.assertNotEqual(upload["status"], "waiting_for_upload")
        self.assertEqual(self.client.wait(upload["submission_id"], timeout=60, interval=0.2)["status"], "needs_review")

    def test_upload_video_tus_resumes_after_an_interruption(self) -> None:
        path = ENV["FRAMEDESK_TEST_VIDEO_TUS"]
        size = os.path.getsize(path)
        upload = self.client.create_media_upload(
            **self.who, filename="long.mp4", content_type="video/mp4", byte_size=size
        )
        self.assertEqual(upload["upload_protocol"], "tus")
        # The upload goes through a proxy that cuts the first PATCH a third of the way into its body.
        url = urllib.parse.urlsplit(upload["upload_url"])
        proxy = CuttingProxy((url.hostname or "127.0.0.1", url.port or 80), b"PATCH", request_bytes=size // 3)
        self.addCleanup(proxy.close)
        via_proxy = {**upload, "upload_url": urllib.parse.urlunsplit(url._replace(netloc=f"127.0.0.1:{proxy.port}"))}
        progress: list[int] = []
        resumes = self.client.send_video(via_proxy, path, chunk_size=size, on_progress=lambda sent, _t: progress.append(sent))
        self.assertEqual(proxy.cuts, 1)
        self.assertGreaterEqual(resumes, 1)
        self.assertEqual(progress[-1], size)
        # After the cut the client asked the server where its copy ends (HEAD), then went on from there.
        methods = [head.split(b" ")[0] for head in proxy.requests]
        self.assertEqual(methods, [b"HEAD", b"PATCH", b"HEAD", b"PATCH"])
        resumed_at = int(dict(self.headers_of(proxy.requests[3]))["upload-offset"])
        self.assertTrue(0 < resumed_at <= size // 3, resumed_at)
        after = self.client.get_media_upload(upload["id"])
        self.assertEqual(after["byte_size"], size)
        self.assertNotEqual(after["status"], "waiting_for_upload")


if __name__ == "__main__":
    unittest.main()
