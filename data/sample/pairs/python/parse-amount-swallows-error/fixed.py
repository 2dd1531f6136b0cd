from decimal import Decimal, InvalidOperation


def parse_amount(text):
    try:
        return Decimal(text.replace(",", "").strip())
    except InvalidOperation as exc:
        raise ValueError(f"invalid amount: {text!r}") from exc
