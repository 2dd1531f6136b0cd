def strip_comments(lines):
    return [line for line in lines if not line.lstrip().startswith("#")]
