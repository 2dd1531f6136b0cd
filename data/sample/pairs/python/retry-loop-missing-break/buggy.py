import time


def send_with_retry(send, payload, attempts=3, delay=0.5):
    response = None
    for attempt in range(attempts):
        try:
            response = send(payload)
        except ConnectionError:
            time.sleep(delay * (2 ** attempt))
            continue
    return response
