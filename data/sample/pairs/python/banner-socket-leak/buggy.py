import socket


def read_banner(host, port, timeout=3.0):
    sock = socket.create_connection((host, port), timeout=timeout)
    data = sock.recv(256)
    sock.close()
    return data.decode("ascii", errors="replace").strip()
