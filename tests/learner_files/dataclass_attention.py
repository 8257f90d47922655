"""A correct causal attention layer with its settings in a dataclass (postponed annotations)."""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn as nn
from learner_helpers import causal_mask


@dataclass
class Settings:
    d_in: int
    d_out: int
    context_length: int
    dropout: float
    qkv_bias: bool = False


class DataclassAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__()
        self.settings = Settings(d_in, d_out, context_length, dropout, qkv_bias)
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        num_tokens = x.shape[1]
        q, k, v = self.W_query(x), self.W_key(x), self.W_value(x)
        scores = (q @ k.transpose(1, 2)).masked_fill(causal_mask(num_tokens), -torch.inf)
        weights = torch.softmax(scores / self.settings.d_out**0.5, dim=-1)
        return self.dropout(weights) @ v
