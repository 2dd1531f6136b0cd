def is_admin(user):
    if not user:
        return False
    role = user.get("role", "").strip().lower()
    return role == "admin"
