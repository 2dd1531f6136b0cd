import logging

log = logging.getLogger(__name__)


def warn_missing(required, settings):
    missing = tuple(k for k in required if k not in settings)
    if missing:
        log.warning("missing settings: %s", ", ".join(missing))
    return missing
