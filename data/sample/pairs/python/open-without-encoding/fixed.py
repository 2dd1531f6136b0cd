import string


def render_template(path, **values):
    with open(path, encoding="utf-8") as f:
        template = string.Template(f.read())
    return template.safe_substitute(values)
