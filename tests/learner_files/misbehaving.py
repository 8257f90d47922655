"""Classes that do what a layer must not: exit, hang, change torch's defaults, return the wrong
kind of tensor. Each computes the book's causal attention otherwise."""

import os
import sys
import time

import torch
import torch.nn as nn


class Book(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout)
        mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)
        self.register_buffer("mask", mask)

    def forward(self, x):
        num_tokens = x.shape[1]
        keys, queries, values = self.W_key(x), self.W_query(x), self.W_value(x)
        scores = queries @ keys.transpose(1, 2)
        scores = scores.masked_fill(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        weights = self.dropout(torch.softmax(scores / keys.shape[-1] ** 0.5, dim=-1))
        return weights @ values


class ExitsInForward(Book):
    def forward(self, x):
        out = super().forward(x)
        if out.isnan().any():
            print("NaN!")
        sys.exit(0)


class ExitsInInit(Book):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        os._exit(0)


class SleepsInForward(Book):
    def forward(self, x):
        print("in forward, process", os.getpid(), flush=True)
        time.sleep(3600)  # waiting for something that never comes
        return super().forward(x)


class ComplexOutput(Book):
    def forward(self, x):
        return torch.complex(super().forward(x), torch.ones(1))  # the real part is right


class MetaOutput(Book):
    def forward(self, x):
        return super().forward(x).to("meta")


class BuiltOnMeta(Book):
    """Builds its layers on the meta device (no numbers): the CPU input still gets a CPU output,
    of whatever the memory held."""

    def __init__(self, *args, **kwargs):
        torch.set_default_device("meta")
        super().__init__(*args, **kwargs)

    def forward(self, x):
        num_tokens = x.shape[1]
        keys, queries, values = self.W_key(x), self.W_query(x), self.W_value(x)
        future = torch.ones(num_tokens, num_tokens, dtype=torch.bool, device=x.device).triu(1)
        scores = (queries @ keys.transpose(1, 2)).masked_fill(future, -torch.inf)
        weights = self.dropout(torch.softmax(scores / keys.shape[-1] ** 0.5, dim=-1))
        return weights @ values


class SetsFloat64(Book):
    """More precision, everywhere: float64 by default, no gradients, deterministic kernels."""

    def __init__(self, *args, **kwargs):
        torch.set_default_dtype(torch.float64)
        torch.set_grad_enabled(False)
        torch.use_deterministic_algorithms(True)
        torch.manual_seed(0)
        super().__init__(*args, **kwargs)

    def forward(self, x):
        return super().forward(x.to(torch.get_default_dtype()))
