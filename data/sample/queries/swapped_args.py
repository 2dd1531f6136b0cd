import os
import shutil


def backup(path, backup_dir):
    target = os.path.join(backup_dir, os.path.basename(path))
    shutil.copyfile(target, path)
    return target
