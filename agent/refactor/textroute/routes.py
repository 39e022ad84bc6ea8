"""Delete and move by text (see the package docstring). Each route takes {rel path: text} of the
workspace's files of the target's language and returns the texts it changes (a created file
included); nothing is written."""

from __future__ import annotations

import posixpath
import re

from .blocks import block, identifiers, is_python, without_lines

Files = dict[str, str]

_PY_FROM = re.compile(r"^(?P<indent>\s*)from\s+(?P<module>[\w.]+)\s+import\s+(?P<names>[^()\\#]+?)\s*(?P<rest>#.*)?$")
_PY_IMPORT = re.compile(r"^import\s+(?P<names>[^()\\#]+?)\s*(#.*)?$")
_TS_IMPORT = re.compile(r"^(?P<indent>\s*)import\s+(?P<type>type\s+)?\{(?P<names>[^}]*)\}\s*from\s*"
                        r"(?P<q>['\"])(?P<spec>[^'\"]+)(?P=q)\s*(?P<semi>;?)\s*$")
_TS_ANY_IMPORT = re.compile(r"^import\s+(?:type\s+)?(?P<clause>[^'\"]+?)\s+from\s*['\"][^'\"]+['\"];?\s*$")
_TS_STAR = re.compile(r"^export\s*\*\s*from\s*(?P<q>['\"])(?P<spec>[^'\"]+)(?P=q)\s*(?P<semi>;?)")
_PY_TOP = re.compile(r"^(?:async\s+def|def|class)\s+(\w+)|^(\w+)\s*(?::[^=]*)?=(?!=)")
_TS_TOP = re.compile(r"^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:async\s+)?(?:abstract\s+)?"
                     r"(?:function\s*\*?|class|interface|type|enum|const|let|var)\s+([\w$]+)")
TS_SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")


def text_delete(files: Files, path: str, name: str) -> Files:
    """Remove NAME's block from its file, nothing else."""
    found = block(files[path], name, is_python(path))
    return {path: without_lines(files[path], *found)} if found else {}


def py_modules(path: str) -> set[str]:
    """The dotted names a Python file may be imported by (from the root, and below `src/`)."""
    parts = re.sub(r"\.pyi?$", "", path).split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    out = {".".join(parts)}
    if len(parts) > 1 and parts[0] in ("src", "lib"):
        out.add(".".join(parts[1:]))
    return out


def _py_module_of(path: str) -> str:
    return min(py_modules(path), key=len)


def ts_resolve(importer: str, spec: str, files: Files) -> str | None:
    if not spec.startswith("."):
        return None
    base = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
    stem = re.sub(r"\.(m|c)?jsx?$", "", base)
    for cand in (base, *(stem + s for s in TS_SUFFIXES), *(stem + "/index" + s for s in TS_SUFFIXES)):
        if cand in files:
            return cand
    return None


def ts_spec(importer: str, target: str) -> str:
    rel = posixpath.relpath(re.sub(r"\.(tsx?|mts|cts|jsx?|mjs|cjs)$", "", target), posixpath.dirname(importer) or ".")
    return rel if rel.startswith(".") else "./" + rel


def _split_names(names: str) -> list[str]:
    return [n.strip() for n in names.split(",") if n.strip()]


def _first(item: str) -> str:
    return item.split()[0] if item.split() else ""


def bound_names(line: str, python: bool) -> set[str]:
    """The names a single-line import binds (empty for anything else)."""
    if python:
        m = _PY_FROM.match(line) or _PY_IMPORT.match(line)
        items = _split_names(m["names"]) if m else []
        return {item.split()[-1].split(".")[0] for item in items}
    m = _TS_ANY_IMPORT.match(line)
    if not m:
        return set()
    return {item.split()[-1] for item in _split_names(m["clause"].replace("{", ",").replace("}", ",")) if item != "*"}


def _imports_name(line: str, python: bool, importer: str, source: str, name: str, files: Files) -> re.Match[str] | None:
    m = (_PY_FROM if python else _TS_IMPORT).match(line)
    if m is None or name not in {_first(n) for n in _split_names(m["names"])}:
        return None
    if python:
        module = m["module"]
        here = "." + re.sub(r"\.pyi?$", "", posixpath.basename(source))
        same_dir = posixpath.dirname(importer) == posixpath.dirname(source)
        return m if module in py_modules(source) or (same_dir and module == here) else None
    return m if ts_resolve(importer, m["spec"], files) == source else None


def _rewrite_import(m: re.Match[str], python: bool, importer: str, dest: str, name: str) -> str:
    """One single-line import that names NAME, pointed at DEST (NAME split off when not alone)."""
    items = _split_names(m["names"])
    mine = next(i for i in items if _first(i) == name)
    rest = [i for i in items if i != mine]
    if python:
        new = f"{m['indent']}from {_py_module_of(dest)} import {mine}"
        if not rest:
            return new
        return f"{m['indent']}from {m['module']} import {', '.join(rest)}" + (f"  {m['rest']}" if m["rest"] else "") \
            + "\n" + new
    kw = f"{m['indent']}import {m['type'] or ''}"
    new = f"{kw}{{ {mine} }} from {m['q']}{ts_spec(importer, dest)}{m['q']}{m['semi']}"
    if not rest:
        return new
    return f"{kw}{{ {', '.join(rest)} }} from {m['q']}{m['spec']}{m['q']}{m['semi']}\n{new}"


def _after_imports(lines: list[str], python: bool) -> int:
    last = -1
    for i, line in enumerate(lines):
        if bound_names(line, python) or (python and line.startswith(("import ", "from "))):
            last = i
        elif line.strip() and not line.startswith(("#", "//", '"""', "'use", '"use')) and last >= 0:
            break
    return last + 1


def _top_names(lines: list[str], python: bool) -> set[str]:
    rx = _PY_TOP if python else _TS_TOP
    return {next(g for g in m.groups() if g) for line in lines if (m := rx.match(line))}


def text_move(files: Files, source: str, dest: str, name: str) -> Files:
    """Cut NAME's block, paste it at the end of DEST with the source's import lines binding names it
    uses and an import of the source's top-level names it uses; import it back into the source
    when the source still uses it; rewrite single-line imports of it from the source everywhere;
    a barrel's `export * from SOURCE` gets `export * from DEST` beside it."""
    python = is_python(source)
    text = files[source]
    found = block(text, name, python)
    if found is None:
        return {}
    lines = text.split("\n")
    body = "\n".join(lines[found[0]:found[1]])
    used = identifiers(body) - {name}
    header = [line for line in lines if bound_names(line, python) & used]
    rest_lines = lines[:found[0]] + lines[found[1]:]
    own = sorted(_top_names(rest_lines, python) & used)
    if own:
        header.append(f"from {_py_module_of(source)} import {', '.join(own)}" if python
                      else f'import {{ {", ".join(own)} }} from "{ts_spec(dest, source)}";')
    out: Files = {}
    new_source = without_lines(text, *found)
    source_lines = new_source.split("\n")
    if name in identifiers("\n".join(line for line in source_lines if not bound_names(line, python))):
        back = f"from {_py_module_of(dest)} import {name}" if python else f'import {{ {name} }} from "{ts_spec(source, dest)}";'
        source_lines.insert(_after_imports(source_lines, python), back)
    out[source] = "\n".join(source_lines)
    old_dest = files.get(dest, "")
    dest_lines = old_dest.split("\n") if old_dest else []
    at = _after_imports(dest_lines, python)
    dest_lines[at:at] = header
    joined = "\n".join(dest_lines).rstrip("\n")
    out[dest] = (joined + "\n\n\n" if joined else "") + body.rstrip("\n") + "\n"
    for rel, content in files.items():
        if rel == source:
            continue
        current = out.get(rel, content).split("\n")
        changed = False
        for i, line in enumerate(current):
            m = _imports_name(line, python, rel, source, name, files)
            if m is not None:
                current[i] = _rewrite_import(m, python, rel, dest, name)
                changed = True
            elif not python and (star := _TS_STAR.match(line)) and ts_resolve(rel, star["spec"], files) == source:
                q = star["q"]
                current[i] = f"{line}\nexport * from {q}{ts_spec(rel, dest)}{q}{star['semi']}"
                changed = True
        if changed:
            out[rel] = "\n".join(current)
    return out
