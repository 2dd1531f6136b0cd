def can_edit(user, document):
    if user is None:
        return False
    is_admin = "admin" in user.roles
    is_owner = document.owner_id == user.id
    return (is_admin or is_owner) and not document.locked
