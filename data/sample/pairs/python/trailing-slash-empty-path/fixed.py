from urllib.parse import urlsplit


def request_path(url):
    path = urlsplit(url).path
    if not path:
        return "/"
    if path[-1] == "/" and path != "/":
        return path[:-1]
    return path
