import socket


def read_banner(host, port, timeout=3.0):
    with socket.create_connection((host, port), timeout=timeout) as sock:
        data = sock.recv(256)
    return data.decode("ascii", errors="replace").strip()
