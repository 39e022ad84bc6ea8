"""Who may talk to the view: the checks every request passes before a page is drawn.

- the `Host` header must name the bound address and port (a DNS-rebinding page names its own host);
- the random token printed with the URL must come once as `?token=` (it is then set as a cookie and
  the browser is sent to the same URL without it) or as that cookie; compared in constant time;
- only GET, HEAD and POST; a POST must come from the view's own origin and carry the CSRF token
  (`check_csrf`, called by each POST route on its parsed form);
- no CORS headers ever; every answer forbids framing, sniffing, caching and sending a referrer to
  other sites, and its Content-Security-Policy allows only the view's own scripts and styles.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
]


class Forbidden(Exception):
    """A request that fails a check (answered 403)."""


@dataclass(slots=True)
class Guard:
    """The secrets of one `codeagent view` process and the address it is bound to."""

    host: str
    port: int
    token: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(32))

    @property
    def netloc(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    @property
    def cookie(self) -> str:
        return f"codeagent_view_{self.port}"  # one per port: two views on one machine keep their own

    def url(self, path: str = "/") -> str:
        return f"http://{self.netloc}{path}?token={self.token}"

    def host_ok(self, value: str) -> bool:
        """The Host header names this server: the bound address (or `localhost` for a loopback bind);
        on a wildcard bind, any IP literal with our port (an IP cannot be rebound by DNS)."""
        host, _, port = value.rpartition(":")
        if port != str(self.port) or not host:
            return False
        host = host.removeprefix("[").removesuffix("]").lower()
        if host == self.host.lower():
            return True
        try:
            bound = ipaddress.ip_address(self.host)
        except ValueError:
            return False
        if bound.is_loopback and host == "localhost":
            return True
        if bound.is_unspecified:
            try:
                ipaddress.ip_address(host)
            except ValueError:
                return False
            return True
        return False

    def token_ok(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode(), self.token.encode())

    def check_csrf(self, given: object) -> None:
        if not isinstance(given, str) or not hmac.compare_digest(given.encode(), self.csrf.encode()):
            raise Forbidden("the form's CSRF token is missing or wrong; reload the page and try again")


class GuardMiddleware:
    """Host, method, origin and token checks in front of the app, and the security headers."""

    def __init__(self, app: ASGIApp, guard: Guard):
        self.app = app
        self.guard = guard

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        response = self._refusal(scope)

        async def send_secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if not k.lower().startswith(b"access-control-")]
                message = {**message, "headers": headers + SECURITY_HEADERS}
            await send(message)

        if response is not None:
            await response(scope, receive, send_secured)
            return
        await self.app(scope, receive, send_secured)

    def _refusal(self, scope: Scope) -> Response | None:
        g = self.guard
        headers = Headers(scope=scope)
        if not g.host_ok(headers.get("host", "")):
            return PlainTextResponse("refused: the Host header does not name this server\n", status_code=400)
        method = scope["method"]
        if method not in ("GET", "HEAD", "POST"):
            return PlainTextResponse("method not allowed\n", status_code=405)
        if method == "POST":
            origin = headers.get("origin")
            if origin is not None and origin != f"http://{headers.get('host')}":
                return PlainTextResponse("refused: a form from another site\n", status_code=403)
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        given = next((v for k, v in query if k == "token"), None)
        if given is not None:
            if not g.token_ok(given):
                return PlainTextResponse("refused: wrong token (use the URL `codeagent view` printed)\n",
                                         status_code=403)
            if method == "GET":  # the token goes into a cookie and out of the address bar and history
                rest = urlencode([(k, v) for k, v in query if k != "token"])
                target = scope.get("path", "/") + (f"?{rest}" if rest else "")
                redirect = RedirectResponse(target, status_code=303)
                redirect.set_cookie(g.cookie, g.token, httponly=True, samesite="strict", path="/")
                return redirect
            return None
        cookie = _cookie(headers, g.cookie)
        if not g.token_ok(cookie):
            return PlainTextResponse("refused: open the URL `codeagent view` printed (it carries the token)\n",
                                     status_code=403)
        return None


def _cookie(headers: Headers, name: str) -> str | None:
    for part in headers.get("cookie", "").split(";"):
        key, _, value = part.strip().partition("=")
        if key == name:
            return value
    return None
