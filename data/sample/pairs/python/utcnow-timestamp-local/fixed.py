from datetime import datetime, timedelta, timezone


def expiry_epoch(ttl_seconds):
    expires = datetime.now(timezone.utc) + timedelta(seconds=ttl_seconds)
    return int(expires.timestamp())
