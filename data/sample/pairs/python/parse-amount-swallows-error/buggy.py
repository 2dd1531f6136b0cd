from decimal import Decimal


def parse_amount(text):
    try:
        return Decimal(text.replace(",", "").strip())
    except Exception:
        return None
