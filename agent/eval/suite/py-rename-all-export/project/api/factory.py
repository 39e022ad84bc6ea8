__all__ = ["make_client", "DEFAULT_URL"]

DEFAULT_URL = "http://localhost"


class Client:
    def __init__(self, url: str):
        self.url = url


def make_client(url: str = DEFAULT_URL) -> Client:
    return Client(url)
