def excerpt(body: str, words: int = 20) -> str:
    return " ".join(body.split()[:words])
