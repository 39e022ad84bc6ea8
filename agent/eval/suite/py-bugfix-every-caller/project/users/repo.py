from dataclasses import dataclass


@dataclass
class User:
    id: int
    name: str
    email: str


_USERS = {1: User(1, "Ann", "ann@example.com"), 2: User(2, "Bob", "bob@example.com")}


def find_user(user_id: int) -> User | None:
    return _USERS.get(user_id)
