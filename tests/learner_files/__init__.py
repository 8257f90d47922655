"""Attention classes written as learners write them, for ``tests/test_check.py``.

``misbehaving.py`` exits, hangs, returns complex numbers or meta tensors, or changes torch's
defaults; ``families.py`` has bugs written in ways the gallery (``attention.bugs``) does not write
them; ``dataclass_attention.py`` is correct, uses a dataclass with postponed annotations and
imports ``learner_helpers.py`` from its own folder; ``exits_at_import.py`` ends the program when
imported; ``forges_the_checker.py`` patches ``attention.check`` at import and writes a pass into
the checker's pipes (never import it in a test process); ``aliasing.py`` returns one buffer it
overwrites on every call; ``leaves_processes.py`` starts ``sleep 40`` and a forked spinner;
``noisy.py`` prints escape codes and 50 MB, and has a class that is not an ``nn.Module``. The
checker loads them as files, or the tests import them and pass the classes.
"""
