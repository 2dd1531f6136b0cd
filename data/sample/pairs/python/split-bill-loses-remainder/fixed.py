def split_bill(total_cents, people):
    if people <= 0:
        raise ValueError("people must be positive")
    share, remainder = divmod(total_cents, people)
    return [share + 1 if i < remainder else share for i in range(people)]
