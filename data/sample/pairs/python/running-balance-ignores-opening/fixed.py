def running_balances(opening, transactions):
    balance = opening
    out = []
    for tx in transactions:
        balance += tx.amount
        out.append((tx.date, balance))
    return out
