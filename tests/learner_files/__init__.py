"""Attention classes written as learners write them, for ``tests/test_check.py``.

``misbehaving.py`` exits, hangs, returns complex numbers or meta tensors, or changes torch's
defaults; ``families.py`` has three bugs written in ways the gallery (``attention.bugs``) does not
write them; ``dataclass_attention.py`` is correct, uses a dataclass with postponed annotations and
imports ``learner_helpers.py`` from its own folder; ``exits_at_import.py`` ends the program when
imported. The checker loads them as files, or the tests import them and pass the classes.
"""
