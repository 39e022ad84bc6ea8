from accounts import models


def as_row(user: models.UserRecord) -> str:
    return f"{user.name},{user.email}"
