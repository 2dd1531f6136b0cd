from datetime import date


def next_billing_date(d: date) -> date:
    return d.replace(month=d.month + 1)
