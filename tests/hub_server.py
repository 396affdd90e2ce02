"""A loopback stand-in for the Hugging Face Hub HTTP API, enough for ``huggingface_hub`` to publish.

Speaks the routes ``HfApi.whoami`` (what ``hf auth login --token`` checks), ``create_repo``,
``create_branch``, ``_validate_yaml``, ``repo_info``,
``preupload`` (every file answered as a *regular* upload, so no LFS/Xet) and ``commit`` (the NDJSON
payload with base64 contents) use, and records repos, commits, received files and every request.
``fail`` injects errors per route: ``server.fail["commit"] = 500`` (``"*"`` matches every route).
One response per connection (HTTP/1.0), so no handler thread outlives its request.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

import yaml

from mnemoforge import yaml_io

MAX_BODY = 256 << 20  # refuse bodies above 256 MiB: a test never needs more

_REPO = r"(?P<type>models|datasets|spaces)/(?P<repo>[^/]+/[^/]+)"
ROUTES = [
    ("whoami", "GET", re.compile(r"^/api/whoami-v2$")),
    ("create", "POST", re.compile(r"^/api/repos/create$")),
    ("validate-yaml", "POST", re.compile(r"^/api/validate-yaml$")),
    ("preupload", "POST", re.compile(rf"^/api/{_REPO}/preupload/(?P<rev>.+)$")),
    ("commit", "POST", re.compile(rf"^/api/{_REPO}/commit/(?P<rev>.+)$")),
    ("branch", "POST", re.compile(rf"^/api/{_REPO}/branch/(?P<rev>.+)$")),
    ("info", "GET", re.compile(rf"^/api/{_REPO}(?:/revision/(?P<rev>.+))?$")),
]


@dataclass
class Recorded:
    method: str
    path: str
    route: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Repo:
    repo_id: str
    type: str
    private: bool
    branches: dict[str, dict[str, bytes]] = field(default_factory=lambda: {"main": {}})
    commits: list[dict] = field(default_factory=list)


class HubServer:
    """Run with ``with HubServer() as hub:``; ``hub.url`` is the endpoint to give huggingface_hub."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self.repos: dict[str, Repo] = {}
        self.fail: dict[str, int | tuple[int, str]] = {}
        self.lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05})
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def __enter__(self) -> HubServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        if self._thread.is_alive():
            self._httpd.shutdown()
            self._thread.join(timeout=5)
        self._httpd.server_close()

    def files(self, repo_id: str, branch: str = "main") -> dict[str, bytes]:
        """Path → bytes currently in ``repo_id`` at ``branch``."""
        return self.repos[repo_id].branches[branch]

    @property
    def commits(self) -> list[dict]:
        return [c for r in self.repos.values() for c in r.commits]

    # --- route handlers: (status, json body) ---------------------------------------------------

    def handle(self, route: str, m: re.Match, body: bytes, headers: dict[str, str]) -> tuple[int, dict]:
        if route == "whoami":  # any bearer token is a valid write token of user `mnemo-user`
            auth = {k.lower(): v for k, v in headers.items()}.get("authorization", "")
            if not auth.startswith("Bearer ") or len(auth) <= len("Bearer "):
                return 401, {"error": "Invalid credentials in Authorization header"}
            token = {"displayName": "mnemoforge-tests", "role": "write"}
            auth_info = {"type": "access_token", "accessToken": token}
            return 200, {"type": "user", "name": "mnemo-user", "auth": auth_info}
        if route == "create":
            data = json.loads(body)
            repo_id = f"{data.get('organization') or 'user'}/{data['name']}"
            rtype = data.get("type") or "model"
            url = f"{self.url}/{'' if rtype == 'model' else rtype + 's/'}{repo_id}"
            if repo_id in self.repos:
                return 409, {"error": "You already created this repo", "url": url}
            self.repos[repo_id] = Repo(repo_id, rtype, data.get("visibility") == "private")
            return 200, {"url": url, "name": repo_id, "id": hashlib.sha1(repo_id.encode()).hexdigest()[:24]}
        if route == "validate-yaml":
            return _validate_yaml(json.loads(body).get("content", ""))
        repo = self.repos.get(m["repo"])
        if repo is None or repo.type + "s" != m["type"]:
            return 404, {"error": "Repository not found"}
        rev = unquote(m["rev"] or "main")
        if route == "branch":
            if rev in repo.branches:
                return 409, {"error": "Reference already exists"}
            repo.branches[rev] = dict(repo.branches["main"])
            return 200, {}
        if rev not in repo.branches:
            return 404, {"error": f"Invalid rev id: {rev}"}
        if route == "info":
            sha = repo.commits[-1]["oid"] if repo.commits else "0" * 40
            return 200, {"id": repo.repo_id, "sha": sha, "private": repo.private, "siblings": []}
        if route == "preupload":
            files = [{"path": f["path"], "uploadMode": "regular", "shouldIgnore": False}
                     for f in json.loads(body)["files"]]
            return 200, {"files": files}
        return self._commit(repo, rev, body)

    def _commit(self, repo: Repo, rev: str, body: bytes) -> tuple[int, dict]:
        lines = [json.loads(line) for line in body.splitlines() if line.strip()]
        if not lines or lines[0].get("key") != "header":
            return 400, {"error": "first NDJSON line must be the header"}
        added: dict[str, bytes] = {}
        for item in lines[1:]:
            if item["key"] != "file" or item["value"].get("encoding") != "base64":
                return 400, {"error": f"unsupported commit operation {item['key']!r} in this test hub"}
            added[item["value"]["path"]] = base64.b64decode(item["value"]["content"], validate=True)
        oid = hashlib.sha1(body).hexdigest()
        repo.branches[rev].update(added)
        header = lines[0]["value"]
        repo.commits.append({"oid": oid, "revision": rev, "summary": header.get("summary"),
                             "description": header.get("description"), "files": sorted(added)})
        prefix = "" if repo.type == "model" else f"{repo.type}s/"
        return 200, {"commitUrl": f"{self.url}/{prefix}{repo.repo_id}/commit/{oid}", "commitOid": oid,
                     "pullRequestUrl": None}


def _validate_yaml(content: str) -> tuple[int, dict]:
    m = re.match(r"^---\n(.*?\n)---\n", content, re.S)
    try:
        meta = yaml_io.safe_load(m.group(1)) if m else {}
    except yaml.YAMLError as e:
        return 400, {"errors": [{"message": f"Invalid YAML: {e}"}]}
    if not isinstance(meta, dict):
        return 400, {"errors": [{"message": "metadata must be a mapping"}]}
    return 200, {"errors": [], "warnings": [] if meta else [{"message": "empty metadata"}]}


def _handler(server: HubServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - keep stderr quiet
            pass

        def _body(self) -> bytes:
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                out = b""
                for _ in range(1 << 20):  # bounded: at most a million chunks
                    size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                    if size == 0 or len(out) + size > MAX_BODY:
                        self.rfile.readline()
                        return out
                    out += self.rfile.read(size)
                    self.rfile.readline()
                return out
            n = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(min(n, MAX_BODY))

        def _serve(self) -> None:
            body = self._body()
            path = urlsplit(self.path).path
            route, match = next(
                ((name, m) for name, verb, rx in ROUTES if verb == self.command and (m := rx.match(path))),
                ("unknown", None),
            )
            seen = Recorded(self.command, self.path, route, dict(self.headers.items()), body)
            with server.lock:
                server.requests.append(seen)
                fail = server.fail.get(route, server.fail.get("*"))
                if fail is not None:
                    status, msg = fail if isinstance(fail, tuple) else (fail, "injected failure")
                    payload = {"error": msg, "header": "injected failure"}
                elif match is None:
                    status, payload = 404, {"error": f"no route {self.command} {path}"}
                else:
                    status, payload = server.handle(route, match, body, seen.headers)
            header = " ".join(str(payload.pop("header", payload.get("error", ""))).split())[:200]
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("X-Request-Id", f"req-{len(server.requests)}")
            if status >= 400:  # an injected failure's message goes only in the body
                self.send_header("X-Error-Message", header)
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = _serve

    return Handler
