def build_headers(token, extra={}):
    if not token:
        raise ValueError("token is required")
    extra["Authorization"] = f"Bearer {token}"
    extra.setdefault("Accept", "application/json")
    return extra
