import logging

log = logging.getLogger(__name__)


def timeout_ms(settings, default=5000):
    raw = settings.get("timeout", default)
    try:
        value = int(raw)
    except (TypeError, ValueError):
        log.warning("invalid timeout %r", raw)
    return value * 1000 if value < 100 else value
