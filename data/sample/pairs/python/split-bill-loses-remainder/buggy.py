def split_bill(total_cents, people):
    if people <= 0:
        raise ValueError("people must be positive")
    share = total_cents // people
    return [share] * people
