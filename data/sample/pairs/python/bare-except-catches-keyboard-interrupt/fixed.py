import time
import urllib.request


def poll(url, interval, handle):
    while True:
        try:
            with urllib.request.urlopen(url, timeout=10) as resp:
                handle(resp.read())
        except OSError:
            pass
        time.sleep(interval)
