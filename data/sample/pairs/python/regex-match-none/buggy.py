import re

_VERSION = re.compile(r"v?(\d+\.\d+(?:\.\d+)?)")


def extract_version(banner):
    m = _VERSION.search(banner)
    return m.group(1)
