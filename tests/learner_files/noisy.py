"""A correct class that prints terminal escape codes and 50 MB of text, and a class that is not
an ``nn.Module``."""

import sys

from misbehaving import Book

print("\x1b[2J\x1b]0;owned\x07\rcleared\u202e")  # clear screen, set the title, bidi override


class Noisy(Book):
    printed = False

    def forward(self, x):
        if not Noisy.printed:
            Noisy.printed = True
            line = "x" * 1023 + "\n"
            for _ in range(50 * 1024):  # 50 MB
                sys.stdout.write(line)
        return super().forward(x)


class NotAModule:
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        self.d_out = d_out

    def __call__(self, x):
        return x
