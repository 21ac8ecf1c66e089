"""The Python client against a small local server that answers as Framedesk does in rare cases.

Runs without a Framedesk API (python3 -m unittest, from clients/python).
"""

from __future__ import annotations

import http.server
import json
import threading
import unittest

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


class OfflineTest(unittest.TestCase):
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
