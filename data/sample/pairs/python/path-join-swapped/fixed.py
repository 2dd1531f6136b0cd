import os


def export_path(directory, name, ext="csv"):
    filename = f"{name}.{ext}"
    return os.path.join(directory, filename)
