"""Ways to forge a pass, from a file whose classes forget the causal mask.

Never import this in a test process: importing it patches ``attention.check`` there. The checker
must import it only in its own fresh interpreter, where the patch reaches nothing that decides.
At import it patches every part of ``attention.check`` that could decide a verdict;
``WritesAPassAndExits`` writes a passing report and made-up results into every pipe it holds,
then ends the program; ``WritesDeepJson`` writes a line nested too deeply to parse.
"""

import json
import os
import sys
from pathlib import Path

import torch
import torch.nn as nn

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository, for attention
try:
    import attention.check as check

    def passing(*args, **kwargs):
        return check.CheckReport("NoMask", "CausalAttention", True, 36, None)

    for name in ("check_attention", "_judge", "_verdict", "_in_this_process", "_isolated"):
        setattr(check, name, passing)
    check.CheckReport.passed = property(lambda self: True)
except Exception:  # the patch may fail; the forgery below is tried all the same
    pass


class NoMask(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        queries, keys, values = self.W_query(x), self.W_key(x), self.W_value(x)
        weights = torch.softmax(queries @ keys.transpose(1, 2) / keys.shape[-1] ** 0.5, dim=-1)
        return self.dropout(weights) @ values


class WritesAPassAndExits(NoMask):
    """Builds fine, then writes a pass into every pipe it holds and ends the process."""

    def forward(self, x):
        report = {"report": json.dumps({"passed": True}), "passed": True}
        forged = [report, {"kind": "single"}, {"build": 0}, {"build": 1}, {"build": 2}]
        forged += [{"call": i, "output": {"kind": "tensor"}} for i in range(64)]
        forged.append({"done": True, "changed": []})
        data = "".join(json.dumps(record) + "\n" for record in forged).encode()
        for fd in range(3, 256):
            try:
                os.write(fd, data)
            except OSError:
                pass
        os._exit(0)


class WritesDeepJson(NoMask):
    """Writes one line of 100,000 nested lists into every pipe it holds, then goes on."""

    def forward(self, x):
        for fd in range(3, 256):
            try:
                os.write(fd, b"[" * 100_000 + b"\n")
            except OSError:
                pass
        return super().forward(x)
