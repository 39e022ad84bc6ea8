from store.files import load

_CACHE: dict[str, str] = {}


def cached(path: str) -> str:
    if path not in _CACHE:
        _CACHE[path] = load(path)
    return _CACHE[path]
