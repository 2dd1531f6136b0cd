def truncate_for_column(text, max_bytes=255):
    if text is None:
        return None
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text
    return data[:max_bytes].decode("utf-8", errors="ignore")
