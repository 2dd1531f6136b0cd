def normalize_dir(path):
    if not path or path == "/":
        return "/"
    path = path.replace("\\", "/")
    return "/" + path.strip("/") + "/"
