import re


def count_word(text, word):
    pattern = re.compile("\b" + re.escape(word) + "\b", re.IGNORECASE)
    return len(pattern.findall(text))
