from datetime import datetime


def parse_run_date(text):
    return datetime.strptime(text.strip(), "%Y-%m-%d").date()
