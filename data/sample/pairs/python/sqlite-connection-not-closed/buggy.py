import sqlite3


def outstanding_balance(db_path, customer_id):
    conn = sqlite3.connect(db_path)
    row = conn.execute(
        "SELECT COALESCE(SUM(amount), 0) FROM ledger WHERE customer_id = ?",
        (customer_id,),
    ).fetchone()
    return row[0]
