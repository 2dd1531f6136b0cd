import re

_VERSION = re.compile(r"v?(\d+\.\d+(?:\.\d+)?)")


def extract_version(banner):
    m = _VERSION.search(banner)
    if m is None:
        return None
    return m.group(1)
