def truncate_for_column(text, max_bytes=255):
    if text is None:
        return None
    if len(text) <= max_bytes:
        return text
    return text[:max_bytes]
