import time


def record_event(name, log=[]):
    log.append((time.time(), name))
    return log
