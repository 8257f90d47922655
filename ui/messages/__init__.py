"""Message modules: each defines ``MESSAGES = {key: {"en": …, "zh": …}}`` (see ``ui/i18n.py``)."""
