from api.factory import make_client

__all__ = ["make_client"]
