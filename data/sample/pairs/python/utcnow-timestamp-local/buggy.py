from datetime import datetime, timedelta


def expiry_epoch(ttl_seconds):
    expires = datetime.utcnow() + timedelta(seconds=ttl_seconds)
    return int(expires.timestamp())
