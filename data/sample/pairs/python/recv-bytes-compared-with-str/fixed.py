def expect_greeting(sock):
    reply = sock.recv(1024).decode("ascii", errors="replace")
    if not reply.startswith("220"):
        raise ConnectionError(f"unexpected greeting: {reply!r}")
    return reply
