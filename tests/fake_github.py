"""A local GitHub REST API for the issue tracker's tests: ``POST /repos/{owner}/{repo}/issues`` over real
HTTP, refusing what GitHub refuses (a wrong or missing token: 401 "Bad credentials"; no title: 422
"Validation Failed" with a ``missing_field`` error; an unknown repository: 404 "Not Found")."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DOCS = "https://docs.github.com/rest/issues/issues#create-an-issue"


class FakeGitHub:
    def __init__(self, token: str, repo: str) -> None:
        self.token, self.repo = token, repo
        self.issues: list[dict[str, Any]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                status, answer = fake.create(self.path, self.headers.get("Authorization"), self._body())
                raw = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def _body(self) -> Any:
                size = int(self.headers.get("Content-Length") or 0)
                try:
                    return json.loads(self.rfile.read(size) or b"null")
                except ValueError:
                    return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def create(self, path: str, auth: str | None, body: Any) -> tuple[int, dict[str, Any]]:
        if auth not in (f"Bearer {self.token}", f"token {self.token}"):
            return 401, {"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"}
        if path != f"/repos/{self.repo}/issues":
            return 404, {"message": "Not Found", "documentation_url": DOCS}
        if not isinstance(body, dict) or not body.get("title"):
            errors = [{"resource": "Issue", "code": "missing_field", "field": "title"}]
            return 422, {"message": "Validation Failed", "errors": errors, "documentation_url": DOCS}
        number = len(self.issues) + 1
        issue = {
            "number": number,
            "title": body["title"],
            "body": body.get("body"),
            "html_url": f"https://github.com/{self.repo}/issues/{number}",
            "state": "open",
        }
        self.issues.append(issue)
        return 201, issue

    def __enter__(self) -> FakeGitHub:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
