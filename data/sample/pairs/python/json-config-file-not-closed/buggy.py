import json


def load_config(path):
    f = open(path, encoding="utf-8")
    data = json.load(f)
    if not isinstance(data, dict):
        raise ValueError(f"{path}: top level must be an object")
    return data
