def parse_port(text):
    port = int(text)
    if port < 0 and port > 65535:
        raise ValueError(f"port out of range: {port}")
    return port
