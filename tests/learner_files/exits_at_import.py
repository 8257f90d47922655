"""A learner's file that tries its class and then ends the program, also when imported."""

import sys

import torch
import torch.nn as nn


class Attention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)

    def forward(self, x):
        return self.W_value(x)


print(Attention(3, 2, 6, 0.0)(torch.rand(1, 6, 3)).shape)
sys.exit(0)
