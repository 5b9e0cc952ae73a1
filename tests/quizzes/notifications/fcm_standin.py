"""A stand-in for Google's side of FCM, on 127.0.0.1: the OAuth 2.0 token endpoint and FCM HTTP v1 ``messages:send``.

The real sending code runs against it unchanged: firebase-admin signs a JWT with the service account's key and
trades it at the account's ``token_uri`` (here) for an access token, then posts each message to FCM's endpoint
(firebase-admin's own constant, ``messaging._MessagingService.FCM_URL``, which the tests point here — the
library's URL, never ours). Tokens in ``unregistered`` get FCM's real error answer: 404 NOT_FOUND with the
``UNREGISTERED`` FcmError detail.
"""

from __future__ import annotations

import json
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

PROJECT = "quizsite-test"
ACCESS_TOKEN = "ya29.stand-in-access-token"


class FcmStandIn:
    def __init__(self) -> None:
        self.token_requests: list[dict[str, Any]] = []
        self.sends: list[dict[str, Any]] = []  # {"path", "authorization", "body"}
        self.unregistered: set[str] = set()
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def fcm_url(self) -> str:
        """What firebase-admin's ``_MessagingService.FCM_URL`` becomes (``{0}`` is the project id)."""
        return self.base + "/v1/projects/{0}/messages:send"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def service_account(self, path: Path) -> Path:
        """A service-account JSON file whose token_uri is this stand-in, with a fresh RSA key."""
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode()
        path.write_text(
            json.dumps(
                {
                    "type": "service_account",
                    "project_id": PROJECT,
                    "private_key_id": "stand-in",
                    "private_key": pem,
                    "client_email": f"push@{PROJECT}.iam.gserviceaccount.com",
                    "client_id": "1",
                    "token_uri": self.base + "/token",
                }
            )
        )
        return path

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _answer(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=UTF-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.path == "/token":
                    form = dict(urllib.parse.parse_qsl(raw.decode()))
                    with standin.lock:
                        standin.token_requests.append(form)
                    self._answer(200, {"access_token": ACCESS_TOKEN, "expires_in": 3600, "token_type": "Bearer"})
                    return
                body = json.loads(raw or b"{}")
                with standin.lock:
                    standin.sends.append(
                        {"path": self.path, "authorization": self.headers.get("Authorization"), "body": body}
                    )
                token = body.get("message", {}).get("token")
                if token in standin.unregistered:
                    self._answer(
                        404,
                        {
                            "error": {
                                "code": 404,
                                "message": "Requested entity was not found.",
                                "status": "NOT_FOUND",
                                "details": [
                                    {
                                        "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError",
                                        "errorCode": "UNREGISTERED",
                                    }
                                ],
                            }
                        },
                    )
                    return
                self._answer(200, {"name": f"projects/{PROJECT}/messages/{len(standin.sends)}"})

        return Handler
