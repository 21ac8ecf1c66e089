"""A TCP proxy that cuts one connection on purpose: the network faults the client must survive."""

from __future__ import annotations

import socket
import threading
import time
from typing import Optional, Tuple


class CuttingProxy:
    """Forwards to ``target``; the first request starting with ``method`` is cut.

    Args:
        target: (host, port) of the API.
        method: The request method to cut, e.g. ``b"PATCH"``.
        request_bytes: Cut the request after this many bytes (headers included): the server
            gets a body that stops short. ``None``: forward the whole request and cut the
            answer instead, so the work is done but the client never hears of it.
    """

    def __init__(self, target: Tuple[str, int], method: bytes, request_bytes: Optional[int] = None) -> None:
        self.target = target
        self.method = method
        self.request_bytes = request_bytes
        self.cuts = 0
        # The head (request line and headers) of every request, in order.
        self.requests: list[bytes] = []
        self._lock = threading.Lock()
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port = self._server.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        self._server.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        upstream = socket.create_connection(self.target)
        first = client.recv(65536)
        self.requests.append(first.split(b"\r\n\r\n", 1)[0])
        with self._lock:
            cut = self.cuts == 0 and first.startswith(self.method + b" ")
            if cut:
                self.cuts += 1
        if cut and self.request_bytes is not None:
            self._cut_request(client, upstream, first, self.request_bytes)
            return
        threading.Thread(target=self._pump_answer, args=(upstream, client, cut), daemon=True).start()
        data = first
        try:
            while data:
                upstream.sendall(data)
                data = client.recv(65536)
            upstream.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def _cut_request(self, client: socket.socket, upstream: socket.socket, first: bytes, limit: int) -> None:
        sent = 0
        data = first
        try:
            while data and sent < limit:
                part = data[: limit - sent]
                upstream.sendall(part)
                sent += len(part)
                if sent < limit:
                    data = client.recv(65536)
            time.sleep(0.3)  # let the server take in what it got before the connection drops
        except OSError:
            pass
        for sock in (upstream, client):
            sock.close()

    @staticmethod
    def _pump_answer(upstream: socket.socket, client: socket.socket, drop: bool) -> None:
        try:
            while True:
                data = upstream.recv(65536)
                if not data or drop:
                    break
                client.sendall(data)
        except OSError:
            pass
        for sock in (upstream, client):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()
