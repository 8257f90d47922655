"""Classes that start processes, as a careless class may: ``sleep 40`` and a forked spinner.
Their ids go to the file named by ``ATTENTION_TEST_PIDS`` so a test can look for them."""

import os
import subprocess
import time

from misbehaving import Book


def _note(pid):
    with open(os.environ["ATTENTION_TEST_PIDS"], "a") as file:
        file.write(f"{pid}\n")


def _start_children():
    _note(subprocess.Popen(["sleep", "40"]).pid)
    pid = os.fork()
    if pid == 0:  # the spinner
        while True:
            pass
    _note(pid)


class StartsProcesses(Book):
    started = False

    def forward(self, x):
        if not StartsProcesses.started:
            StartsProcesses.started = True
            _start_children()
        return super().forward(x)


class StartsProcessesThenHangs(Book):
    def forward(self, x):
        _start_children()
        time.sleep(3600)
