import threading


class Progress:
    def __init__(self, total):
        self.total = total
        self.completed = 0

    def task_done(self):
        self.completed += 1
        return self.completed == self.total
