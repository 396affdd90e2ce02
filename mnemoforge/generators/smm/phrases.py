"""The domain-free phrase banks of evidence scaffolds: reference tags, replies, clarifications,
filler notes, and the wordings of initial values, updates and record codes (lead-ins posting an
attachment and rumour wordings come from the theme's content pack, see ``filler.py``).

Background talk draws on the same lead-ins and checks, so no phrase marks evidence by itself.
"""

from __future__ import annotations

REF = {
    "table": "Table",
    "document": "Doc.",
    "email": "Mail",
    "chat_screenshot": "Fig.",
    "calendar": "Fig.",
    "profile_card": "Card",
    "photo": "Photo",
}
LEAD_IN = {"profile_card": ["Directory card."]}  # other media: the pack's or the theme's lead_ins
TEXT_LEAD = ["Quick one about {entity}.", "Update on {entity}:", "Before I forget, {entity}.", "Re {entity}:"]
REPLY = [
    "Noted, thanks.",
    "Got it.",
    "Thanks for flagging.",
    "Perfect, thanks!",
    "OK, adding it to my notes.",
]
CLARIFY = [("Is that final?", "Yes, that's confirmed."), ("Is that the latest version?", "Yes, the latest.")]
FILLER_MEDIUM = {
    "spreadsheet": "table",
    "documents": "document",
    "email": "email",
    "screenshots": "chat_screenshot",
    "images": "photo",
}
NOTE = {
    "spreadsheet": "{who} added a tab to the sheet.",
    "documents": "{who} uploaded a new document.",
    "email": "New message from {who}.",
    "screenshots": "{who} dropped a screenshot in the folder.",
    "profile_cards": "The directory was refreshed.",
    "images": "{who} added a photo to the album.",
}
INITIAL = [
    "The {label} for {name} is {value}.",
    "Confirmed: {name} {label} is {value}.",
    "FYI the {label} of {name} is {value}.",
]
UPDATE = [  # half of them unmarked: only the time tells that it overrides
    "Change of plan: the {label} of {name} is now {value}.",
    "Heads-up, the {label} for {name} changed, it's now {value}.",
    "Correction on {name}: the {label} is now {value}.",
    "The {label} for {name} is {value}.",
    "Confirmed: {name} {label} is {value}.",
    "{name}: {label} {value}, for the record.",
]
CODE_LINES = [
    "{name} is filed as {code} in the tracker.",
    "For the record, {name} goes by {code} in our sheets.",
    "Heads-up: {code} is the reference for {name}.",
]
