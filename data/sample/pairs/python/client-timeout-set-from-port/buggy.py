class HttpClient:
    def __init__(self, host, port=443, timeout=10.0):
        self.host = host
        self.port = port
        self.timeout = port
        self.session = None
