"""What a phone needs on every page: 44 px touch targets, a sidebar that closes after navigation.

``phone.css`` enlarges Streamlit's small −/+ and buttons only where the pointer is coarse (a
laptop keeps the compact sidebar); ``phone.js`` closes the sidebar, which covers most of a phone's
screen, after a page link is tapped. Mounted once per run in the sidebar; it draws nothing.
"""

from __future__ import annotations

from .components import define

PHONE_CLASS = "al-phone"
_COMPONENT = define("phone", class_name=PHONE_CLASS)


def phone_support() -> None:
    """Mount the stylesheet and the sidebar's closing script."""
    _COMPONENT(key="al-phone")
