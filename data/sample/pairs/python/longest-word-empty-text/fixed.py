def longest_word(text):
    words = []
    for token in text.split():
        words.append(token.strip(".,;:!?"))
    return max(words, key=len, default="")
