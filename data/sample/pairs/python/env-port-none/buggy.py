import os


def listen_port(default=8080):
    value = os.environ.get("PORT")
    port = int(value)
    if port <= 0:
        return default
    return port
