from accounts.models import UserRecord


def register(name: str, email: str) -> UserRecord:
    return UserRecord(name, email)


def is_user(value: object) -> bool:
    return isinstance(value, UserRecord)
