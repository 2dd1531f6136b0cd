def strip_comments(lines):
    for line in lines:
        if line.lstrip().startswith("#"):
            lines.remove(line)
    return lines
