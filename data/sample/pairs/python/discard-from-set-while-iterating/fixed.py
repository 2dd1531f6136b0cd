def reap_finished(self):
    finished = [job for job in self.pending if job.done()]
    self.pending.difference_update(finished)
    return finished
