import re


def split_fields(line, separator, maxsplit=0):
    parts = re.split(r"\s*" + separator + r"\s*", line.strip(), maxsplit=maxsplit)
    return [p for p in parts if p]
