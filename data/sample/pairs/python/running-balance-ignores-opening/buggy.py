def running_balances(opening, transactions):
    balance = 0
    out = []
    for tx in transactions:
        balance += tx.amount
        out.append((tx.date, balance))
    return out
