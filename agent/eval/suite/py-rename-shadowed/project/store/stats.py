from store import files


def busiest(samples: list[float]) -> float:
    load = max(samples)  # the CPU load, not a file
    return load


def size(path: str) -> int:
    return len(files.load(path))
