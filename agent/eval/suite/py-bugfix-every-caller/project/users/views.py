from users.repo import find_user


def display_name(user_id: int) -> str:
    """The user's name, or "unknown"."""
    return find_user(user_id).name


def greeting(user_id: int) -> str:
    """A greeting; "Hello!" when the user is unknown."""
    user = find_user(user_id)
    return f"Hello, {user.name}!"
