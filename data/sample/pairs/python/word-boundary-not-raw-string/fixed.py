import re


def count_word(text, word):
    pattern = re.compile(r"\b" + re.escape(word) + r"\b", re.IGNORECASE)
    return len(pattern.findall(text))
