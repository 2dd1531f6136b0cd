import os


def listen_port(default=8080):
    value = os.environ.get("PORT")
    if value is None or not value.strip():
        return default
    port = int(value)
    if port <= 0:
        return default
    return port
