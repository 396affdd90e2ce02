"""Words the smm schema and its cross-field checks share: weekday names and the conversational
source kinds."""

from __future__ import annotations

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


CONVERSATIONAL = ("group_chat", "dm", "assistant_chat")
