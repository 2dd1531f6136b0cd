import math


def is_fully_paid(amount_due, payments):
    if amount_due <= 0:
        return True
    paid = sum(p.amount for p in payments)
    return paid > amount_due or math.isclose(paid, amount_due, abs_tol=0.005)
