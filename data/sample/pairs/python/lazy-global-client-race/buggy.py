_client = None


def get_client(factory):
    global _client
    if _client is None:
        _client = factory()
    return _client
