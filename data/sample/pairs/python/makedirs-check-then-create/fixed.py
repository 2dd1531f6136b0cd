import os


def ensure_cache_dir(root, name):
    path = os.path.join(root, name)
    os.makedirs(path, exist_ok=True)
    return path
