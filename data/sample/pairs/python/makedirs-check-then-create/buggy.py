import os


def ensure_cache_dir(root, name):
    path = os.path.join(root, name)
    if not os.path.exists(path):
        os.makedirs(path)
    return path
