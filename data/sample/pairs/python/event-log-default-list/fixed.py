import time


def record_event(name, log=None):
    if log is None:
        log = []
    log.append((time.time(), name))
    return log
