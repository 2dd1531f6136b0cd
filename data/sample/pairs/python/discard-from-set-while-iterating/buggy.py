def reap_finished(self):
    finished = []
    for job in self.pending:
        if job.done():
            self.pending.discard(job)
            finished.append(job)
    return finished
