import threading


class Progress:
    def __init__(self, total):
        self.total = total
        self.completed = 0
        self._lock = threading.Lock()

    def task_done(self):
        with self._lock:
            self.completed += 1
            return self.completed == self.total
