def contains_any(text, needles):
    if not text:
        return False
    text = text.lower()
    matches = [n for n in needles if n.lower() in text]
    return len(matches) > 0
