"""Classes that return one buffer they overwrite on every call, as a learner may write to save
memory. The checker must copy each output the moment it comes back."""

import torch
import torch.nn as nn


class Buffered(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.p = dropout
        self.register_buffer("out", torch.zeros(0), persistent=False)

    def weights(self, x):
        scores = self.W_query(x) @ self.W_key(x).transpose(1, 2) / self.W_key.out_features**0.5
        T = x.shape[1]
        hidden = torch.ones(T, T, dtype=torch.bool).triu(1)
        return torch.softmax(scores.masked_fill(hidden, -torch.inf), dim=-1)

    def forward(self, x):
        result = self.compute(x)
        self.out.resize_(result.shape).copy_(result)  # the same storage, every call
        return self.out


class BufferedNoMask(Buffered):
    """Forgets the mask."""

    def compute(self, x):
        scores = self.W_query(x) @ self.W_key(x).transpose(1, 2) / self.W_key.out_features**0.5
        weights = nn.functional.dropout(scores.softmax(-1), self.p, self.training)
        return weights @ self.W_value(x)


class BufferedUnscaledDropout(Buffered):
    """Drops weights without the 1/(1-p) rescaling."""

    def compute(self, x):
        weights = self.weights(x)
        if self.training and self.p > 0:
            keep = nn.functional.dropout(torch.ones_like(weights), self.p, True) != 0
            weights = weights * keep
        return weights @ self.W_value(x)
