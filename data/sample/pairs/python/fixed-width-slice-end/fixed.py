def parse_fixed_width(line, widths):
    fields = []
    pos = 0
    for width in widths:
        fields.append(line[pos:pos + width].strip())
        pos += width
    return fields
