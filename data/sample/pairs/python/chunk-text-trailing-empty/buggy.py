def chunk_text(text, size):
    if size <= 0:
        raise ValueError("size must be positive")
    if len(text) < size:
        return [text]
    return [text[:size]] + chunk_text(text[size:], size)
