from users import repo


def address(user_id: int) -> str | None:
    """Where to write, or None."""
    return repo.find_user(user_id).email


def known(user_id: int) -> bool:
    """Whether the id is known."""
    return repo.find_user(user_id) is not None
