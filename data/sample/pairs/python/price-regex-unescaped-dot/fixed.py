import re
from decimal import Decimal

_PRICE = re.compile(r"\d+\.\d{2}")


def parse_price(text):
    if not _PRICE.fullmatch(text):
        raise ValueError(f"bad price: {text!r}")
    return Decimal(text)
