"""Four bugs written the way a learner writes them, not the way the gallery does."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Base(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__()
        self.d_out = d_out
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.tril(torch.ones(context_length, context_length)))


class PastHidden(Base):
    """Meant to hide the future; hides the past with tril(-1), keeping each token itself."""

    def forward(self, x):
        T = x.shape[1]
        scores = self.W_query(x) @ self.W_key(x).mT / self.d_out**0.5
        hide = torch.tril(torch.ones(T, T, dtype=torch.bool), diagonal=-1)
        weights = F.softmax(scores.masked_fill(hide, float("-inf")), dim=-1)
        return self.dropout(weights) @ self.W_value(x)


class DropoutOnMaskedScores(Base):
    """Dropout on the masked, scaled scores, before the softmax."""

    def forward(self, x):
        T = x.shape[1]
        scores = self.W_query(x) @ self.W_key(x).mT / self.d_out**0.5
        scores = scores.masked_fill(self.mask[:T, :T] == 0, float("-inf"))
        scores = self.dropout(scores)
        return F.softmax(scores, dim=-1) @ self.W_value(x)


class MaskNeverApplied(Base):
    """Registers a mask in __init__ and forgets it in forward."""

    def forward(self, x):
        q, k, v = self.W_query(x), self.W_key(x), self.W_value(x)
        weights = torch.softmax(torch.einsum("btd,bsd->bts", q, k) / self.d_out**0.5, dim=-1)
        return torch.einsum("bts,bsd->btd", self.dropout(weights), v)


class ScaledByTokens(Base):
    """Scales by the square root of keys.shape[1], the tokens, instead of keys.shape[-1]."""

    def forward(self, x):
        T = x.shape[1]
        queries, keys, values = self.W_query(x), self.W_key(x), self.W_value(x)
        scores = (queries @ keys.transpose(1, 2)).masked_fill(self.mask[:T, :T] == 0, -torch.inf)
        weights = torch.softmax(scores / keys.shape[1] ** 0.5, dim=-1)
        return self.dropout(weights) @ values
