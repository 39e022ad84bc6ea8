"""The view's guard against the real `codeagent view` process: no token, a wrong token, a foreign
Host (DNS rebinding) or a POST without the CSRF token (or from another origin) is refused; no CORS
header is ever sent; no URL reaches a file outside `.codeagent/` data; a wildcard bind warns."""

from __future__ import annotations

import http.client
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import pytest
from viewkit import FIXTURES, ViewServer, scripted_run


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ViewServer, Path, str]]:
    root = (tmp_path_factory.mktemp("sec") / "buggy").resolve()
    shutil.copytree(FIXTURES / "buggy", root)
    run_id = scripted_run(root)
    server = ViewServer("view", "--root", str(root), "--port", "0")
    yield server, root, run_id
    server.stop()


def request(server: ViewServer, method: str, path: str, *, host: str | None = None, cookie: bool = False,
            body: dict[str, str] | None = None, origin: str | None = None) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection(server.netloc, timeout=30)
    headers = {"Host": host or server.netloc}
    if cookie:
        port = server.netloc.rsplit(":", 1)[1]
        headers["Cookie"] = f"codeagent_view_{port}={server.token}"
    data = None
    if body is not None:
        data = urlencode(body)
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    if origin is not None:
        headers["Origin"] = origin
    conn.request(method, path, body=data, headers=headers)
    response = conn.getresponse()
    response.read()
    return response


def fetch(server: ViewServer, path: str, **kw: object) -> tuple[int, str, http.client.HTTPMessage]:
    conn = http.client.HTTPConnection(server.netloc, timeout=30)
    port = server.netloc.rsplit(":", 1)[1]
    headers = {"Host": str(kw.get("host") or server.netloc)}
    if kw.get("cookie", True):
        headers["Cookie"] = f"codeagent_view_{port}={server.token}"
    conn.request("GET", path, headers=headers)
    r = conn.getresponse()
    return r.status, r.read().decode("utf-8", "replace"), r.headers


def test_requests_without_the_token_or_with_a_wrong_one_are_refused(served: tuple[ViewServer, Path, str]) -> None:
    server, _, run_id = served
    for path in ("/runs", f"/runs/{run_id}", "/ops", "/compare", "/static/app.js", f"/runs/{run_id}/events"):
        status, body, _ = fetch(server, path, cookie=False)
        assert status == 403, path
        assert "token" in body
    status, _, _ = fetch(server, "/runs?token=" + "x" * len(server.token), cookie=False)
    assert status == 403
    status, _, _ = fetch(server, "/runs?token=" + server.token[:-1], cookie=False)
    assert status == 403
    # the right token: once in the URL, then a cookie (HttpOnly, SameSite=Strict) and a redirect without it
    status, _, headers = fetch(server, "/runs?status=finished&token=" + server.token, cookie=False)
    assert status == 303 and headers["location"] == "/runs?status=finished"
    cookie = headers["set-cookie"]
    assert server.token in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict")
    status, body, _ = fetch(server, "/runs")
    assert status == 200 and run_id in body


def test_a_foreign_host_header_is_refused(served: tuple[ViewServer, Path, str]) -> None:
    server, _, _ = served
    port = server.netloc.rsplit(":", 1)[1]
    for host in ("evil.example", f"evil.example:{port}", "127.0.0.1:1", f"127.0.0.2:{port}", f"127.0.0.1.nip.io:{port}"):
        status, body, _ = fetch(server, "/runs", host=host)
        assert status == 400, host
        assert "Host" in body
    assert fetch(server, "/runs", host=f"localhost:{port}")[0] == 200  # loopback by name is this server


def test_undo_needs_a_post_with_the_csrf_token_from_this_origin(served: tuple[ViewServer, Path, str]) -> None:
    server, root, run_id = served
    before = (root / "buggy.py").read_bytes()
    _, page, _ = fetch(server, f"/runs/{run_id}")
    csrf = re.search(r'name="csrf" value="([^"]+)"', page)
    assert csrf is not None
    for body, origin in (({"run": run_id}, None), ({"run": run_id, "csrf": "nope"}, None),
                         ({"run": run_id, "csrf": csrf[1][:-2] + "xx"}, None),
                         ({"run": run_id, "csrf": csrf[1]}, "http://evil.example")):
        r = request(server, "POST", "/undo", cookie=True, body=body, origin=origin)
        assert r.status == 403, (body, origin)
    assert request(server, "POST", "/undo", cookie=False, body={"run": run_id, "csrf": csrf[1]}).status == 403
    assert request(server, "GET", "/undo", cookie=True).status == 405
    assert request(server, "PUT", f"/runs/{run_id}", cookie=True).status == 405
    assert (root / "buggy.py").read_bytes() == before  # nothing was undone


def test_no_cors_headers_and_strict_security_headers(served: tuple[ViewServer, Path, str]) -> None:
    server, _, run_id = served
    for path in ("/runs", f"/runs/{run_id}", "/static/app.css", "/nope"):
        _, _, headers = fetch(server, path)
        assert not [h for h in headers if h.lower().startswith("access-control-")], path
        assert "frame-ancestors 'none'" in headers["content-security-policy"]
        assert headers["x-content-type-options"] == "nosniff" and headers["cache-control"] == "no-store"


def test_no_url_reaches_a_file_outside_the_view_data(served: tuple[ViewServer, Path, str]) -> None:
    server, root, run_id = served
    (root.parent / "secret.jsonl").write_text('{"type": "run_start", "task": "SECRET"}\n')
    for path in ("/runs/..%2Fsecret", "/runs/..%2F..%2Fsecret", "/runs/%2e%2e/secret", "/static/..%2Fapp.py",
                 "/static/../../pyproject.toml", "/static/%2e%2e%2f__init__.py", f"/runs/{run_id}/output/..%2F..",
                 "/ops?run=../../etc", "/runs/.hidden"):
        status, body, _ = fetch(server, path)
        assert status in (400, 404) or (status == 200 and "SECRET" not in body and "import" not in body), path
        assert "SECRET" not in body and "root:x:" not in body
    status, body, _ = fetch(server, "/runs/..secret")  # one path segment: it reaches run_path, which refuses it
    assert status == 404 and "not a run id" in body


def test_a_wildcard_bind_warns_loudly(tmp_path: Path) -> None:
    server = ViewServer("view", "--root", str(tmp_path), "--host", "0.0.0.0", "--port", "0")
    try:
        port = server.netloc.rsplit(":", 1)[1]
        assert fetch(server, "/runs", host=f"127.0.0.1:{port}")[0] == 200
        assert fetch(server, "/runs", host=f"attacker.example:{port}")[0] == 400  # names are still refused
    finally:
        server.stop()
    assert "WARNING: listening on every network interface" in server.stderr
