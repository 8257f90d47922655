"""A learner's helper module, imported by dataclass_attention.py from the same folder."""

import torch


def causal_mask(num_tokens):
    """True above the diagonal: the tokens each row must not see."""
    return torch.ones(num_tokens, num_tokens, dtype=torch.bool).triu(1)
