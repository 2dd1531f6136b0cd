import re


def collapse_whitespace(text):
    return re.sub(r"\s+", " ", text).strip()
