def build_headers(token, extra=None):
    if not token:
        raise ValueError("token is required")
    headers = dict(extra or {})
    headers["Authorization"] = f"Bearer {token}"
    headers.setdefault("Accept", "application/json")
    return headers
