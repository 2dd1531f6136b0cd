import sqlite3
from contextlib import closing


def outstanding_balance(db_path, customer_id):
    with closing(sqlite3.connect(db_path)) as conn:
        row = conn.execute(
            "SELECT COALESCE(SUM(amount), 0) FROM ledger WHERE customer_id = ?",
            (customer_id,),
        ).fetchone()
    return row[0]
