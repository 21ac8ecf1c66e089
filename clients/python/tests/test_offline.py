"""The Python client against a small local server that answers as Framedesk does in rare cases.

Runs without a Framedesk API (python3 -m unittest, from clients/python).
"""

from __future__ import annotations

import http.server
import json
import threading
import unittest

import framedesk
from framedesk._http import RetryPolicy, Transport
from framedesk.uploads import tus_offset


class LockedOnceHandler(http.server.BaseHTTPRequestHandler):
    """HEAD answers 423 upload_locked (Retry-After: 0) the first time, then the offset."""

    heads = 0

    def do_HEAD(self) -> None:  # noqa: N802 (http.server's naming)
        type(self).heads += 1
        if type(self).heads == 1:
            body = json.dumps({"status": 423, "code": "upload_locked", "detail": "locked"}).encode()
            self.send_response(423)
            self.send_header("Content-Type", "application/problem+json")
            self.send_header("Retry-After", "0")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Upload-Offset", "1234")
        self.send_header("Upload-Length", "5000")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


MOMENTS = [
    {"at": 1.235, "label": "logo flickers"},
    {"start": 4, "end": 6.5, "label": "black frames", "region": {"x": 0.1, "y": 0.2, "width": 0.3, "height": 0.4}},
]
REVIEW = {
    "decision": "rejected",
    "reason": "Low quality",
    "decided_by": "person",
    "rule": None,
    "note": None,
    "regions": [],
    "moments": MOMENTS,
}


class FeedbackHandler(http.server.BaseHTTPRequestHandler):
    """A rejected video as GET /v1/frame-submissions/{id} and the agent's feedback return it."""

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        if self.path.startswith("/v1/agents/"):
            payload: object = {"agent_slug": "film-bot", "rejections": [{"id": "sub_1", **REVIEW}]}
        else:
            payload = {"id": "sub_1", "media_type": "video", "status": "rejected", "review": REVIEW}
        body = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


class OfflineTest(unittest.TestCase):
    def test_a_videos_time_coded_items_are_read_exactly(self) -> None:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FeedbackHandler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            client = framedesk.Client(f"http://127.0.0.1:{server.server_address[1]}", "fd_live_" + "x" * 33)
            submission = client.get_submission("sub_1")
            self.assertEqual(framedesk.moments_of(submission), MOMENTS)
            self.assertEqual(framedesk.regions_of(submission), [])
            rejection = client.get_feedback("film-bot")["rejections"][0]
            self.assertEqual(framedesk.moments_of(rejection), MOMENTS)
            ranged: framedesk.MomentRange = framedesk.moments_of(rejection)[1]  # type: ignore[assignment]
            self.assertEqual((ranged["start"], ranged["end"], ranged["region"]["width"]), (4, 6.5, 0.3))
            self.assertEqual(framedesk.moments_of({"id": "sub_2", "review": None}), [])
        finally:
            server.shutdown()
            server.server_close()

    def test_a_tus_head_answered_423_is_asked_again_after_retry_after(self) -> None:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), LockedOnceHandler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            transport = Transport(timeout=5, retry=RetryPolicy(), user_agent="test")
            url = f"http://127.0.0.1:{server.server_address[1]}/uploads/tus/up_1?token=t"
            self.assertEqual(tus_offset(transport, url), 1234)
            self.assertEqual(LockedOnceHandler.heads, 2)
        finally:
            server.shutdown()
            server.server_close()


if __name__ == "__main__":
    unittest.main()
