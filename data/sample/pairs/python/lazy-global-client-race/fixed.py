import threading

_client = None
_client_lock = threading.Lock()


def get_client(factory):
    global _client
    if _client is None:
        with _client_lock:
            if _client is None:
                _client = factory()
    return _client
