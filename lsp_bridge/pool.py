"""One shared, lazily started language server per (workspace root, language)."""

from __future__ import annotations

import atexit
import dataclasses
import threading
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lsp_bridge.config_check import Fallback, config_diagnostics
from lsp_bridge.documents import SKIP_DIRS
from lsp_bridge.errors import BridgeError
from lsp_bridge.loop import LoopThread, shared_loop
from lsp_bridge.positions import Decode, normalize_text
from lsp_bridge.servers import DEFAULT_SERVERS, ServerSpec, get_spec
from lsp_bridge.session import LspSession
from lsp_bridge.types import Diagnostic

LANGUAGES = ("python", "typescript")
_LANGUAGE_ALIASES = {"py": "python", "ts": "typescript", "tsx": "typescript", "javascript": "typescript",
                     "js": "typescript", "jsx": "typescript"}


class SessionPool:
    """`get(root, language)` returns the session serving that workspace; servers start on first use.

    Configuration is passed in (the bridge reads no config of its own): `servers` maps a language
    to a server name (see `lsp_bridge.servers.SERVERS`), `settings` maps a language to settings
    merged over the server's defaults, `cache_dir` is where npm servers are installed,
    `language_ids` maps a language to the caller's suffix → languageId table (default: the spec's),
    `skip_dirs` are folder names whose files are never synced (default: documents.SKIP_DIRS),
    `decode` turns a file's bytes into the text positions refer to (lsp_bridge.positions.Decode).
    `fallback`: when a server with a fallback (ServerSpec.fallback) rejects the workspace's config
    file, serve that workspace with the fallback server instead (see `fallback()` for why).
    """

    def __init__(self, *, servers: Mapping[str, str] | None = None, cache_dir: Path | None = None,
                 auto_install: bool = True, settings: Mapping[str, Mapping[str, Any]] | None = None,
                 request_timeout: float = 60.0, ready_timeout: float = 300.0, start_timeout: float = 60.0,
                 loop: LoopThread | None = None, watch_files: bool = True,
                 language_ids: Mapping[str, Mapping[str, str]] | None = None,
                 skip_dirs: frozenset[str] = SKIP_DIRS, decode: Decode = normalize_text,
                 fallback: bool = True) -> None:
        self._servers = {**DEFAULT_SERVERS, **(servers or {})}
        for name in self._servers.values():
            get_spec(name)  # unknown names fail here, not at first use
        self._cache_dir = cache_dir
        self._auto_install = auto_install
        self._settings = dict(settings or {})
        self._language_ids = dict(language_ids or {})
        self._skip_dirs = skip_dirs
        self._request_timeout = request_timeout
        self._ready_timeout = ready_timeout
        self._start_timeout = start_timeout
        self._watch_files = watch_files
        self._decode = decode
        self._loop = loop
        self._allow_fallback = fallback
        self._sessions: dict[tuple[Path, str], LspSession] = {}
        self._fallbacks: dict[tuple[Path, str], Fallback] = {}
        self._config: dict[tuple[Path, str], tuple[Diagnostic, ...]] = {}
        self._resolved: dict[str, Path] = {}
        self._lock = threading.Lock()
        atexit.register(_close_at_exit, weakref.ref(self))

    def get(self, root: Path, language: str) -> LspSession:
        lang = _LANGUAGE_ALIASES.get(language, language)
        if lang not in LANGUAGES:
            raise BridgeError(f"no language server for {language!r}; supported: {', '.join(LANGUAGES)}")
        key = (self._root(root), lang)
        with self._lock:
            session = self._sessions.get(key)
            if session is None:
                spec = get_spec(self._servers[lang])
                session = self._new(key, spec)
                if spec.fallback and self._allow_fallback:
                    session = self._checked(key, spec, session)
                self._sessions[key] = session
            return session

    def _root(self, root: Path) -> Path:
        resolved = self._resolved.get(str(root))
        if resolved is None:  # realpath costs a system call per path component: once per root
            resolved = self._resolved[str(root)] = Path(root).resolve()
        return resolved

    def _new(self, key: tuple[Path, str], spec: ServerSpec) -> LspSession:
        if key[1] in self._language_ids:
            spec = dataclasses.replace(spec, language_ids=self._language_ids[key[1]])
        return LspSession(
            key[0], spec, loop=self._loop or shared_loop(),
            cache_dir=self._cache_dir, auto_install=self._auto_install,
            settings=self._settings.get(key[1]), request_timeout=self._request_timeout,
            ready_timeout=self._ready_timeout, start_timeout=self._start_timeout,
            watch_files=self._watch_files, skip_dirs=self._skip_dirs, decode=self._decode)

    def _checked(self, key: tuple[Path, str], spec: ServerSpec, session: LspSession) -> LspSession:
        """Start `session` on one project file and read its word on the config file; a fatal one
        (ServerSpec.fatal_config_codes) stops it and starts the fallback server instead."""
        probe = config_diagnostics(session, key[0], self._skip_dirs)
        if probe is None:
            return session
        config, found = probe
        self._config[key] = tuple(found)
        fatal = tuple(d for d in found if d.code in spec.fatal_config_codes)
        if not fatal or spec.fallback is None:
            return session
        session.stop()
        other = get_spec(spec.fallback)
        self._fallbacks[key] = Fallback(spec.name, other.name, config, fatal, tuple(found))
        return self._new(key, other)

    def fallback(self, root: Path, language: str) -> Fallback | None:
        """Why `root` is served by a fallback server (e.g. TypeScript 7 refusing `baseUrl`), if it is."""
        return self._fallbacks.get((self._root(root), _LANGUAGE_ALIASES.get(language, language)))  # (every request)

    def config_diagnostics(self, root: Path, language: str) -> list[Diagnostic]:
        """What the first server said about the workspace's config file (tsconfig.json), if asked."""
        return list(self._config.get((Path(root).resolve(), _LANGUAGE_ALIASES.get(language, language)), ()))

    def sessions(self) -> list[LspSession]:
        with self._lock:
            return list(self._sessions.values())

    def close_all(self) -> None:
        """Stop every server (shutdown + exit, killed if needed). The pool stays usable."""
        with self._lock:
            sessions, self._sessions = list(self._sessions.values()), {}
        for session in sessions:
            session.stop()


def _close_at_exit(ref: weakref.ref[SessionPool]) -> None:
    pool = ref()
    if pool is not None:
        pool.close_all()
