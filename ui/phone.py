"""What a phone needs on every page: 44 px touch targets, a sidebar that closes after navigation.

Streamlit draws the number input's −/+ and small buttons for a mouse (the seed's −/+ are
32 × 38 px on a phone); ``phone.css`` enlarges them only where the pointer is coarse (a finger),
so a laptop keeps the compact sidebar. On a phone the open sidebar covers three quarters of the
screen and Streamlit leaves it open after a page link is tapped; ``phone.js`` closes it then.
The frame mounts the component once per run, in the sidebar; it draws nothing.
"""

from __future__ import annotations

from .components import define

PHONE_CLASS = "al-phone"
_COMPONENT = define("phone", class_name=PHONE_CLASS)


def phone_support() -> None:
    """Mount the stylesheet and the sidebar's closing script."""
    _COMPONENT(key="al-phone")
