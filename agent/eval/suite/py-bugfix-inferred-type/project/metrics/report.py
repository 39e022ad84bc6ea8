from metrics.index import build_index


def summarize(words: list[str]) -> list[str]:
    result = build_index(words)
    lines = []
    for name, count in sorted(result.entries):
        lines.append(f"{name}: {count}")
    return lines
