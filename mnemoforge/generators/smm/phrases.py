"""The phrase banks of evidence scaffolds: reference tags, lead-ins, replies, clarifications,
filler notes, and the wordings of initial values, updates, rumours and record codes.

Background talk draws on the same lead-ins and checks, so no phrase marks evidence by itself.
"""

from __future__ import annotations

REF = {
    "table": "Table",
    "document": "Doc.",
    "chat_screenshot": "Fig.",
    "calendar": "Fig.",
    "profile_card": "Card",
    "photo": "Photo",
}
LEAD_IN = {
    "table": [
        "Sharing the table from the planning doc.",
        "Pasting the tracker tab here.",
        "Here's the sheet view.",
    ],
    "document": ["Here's the memo from ops.", "Attaching the official notice.", "The write-up is attached."],
    "chat_screenshot": ["Screenshot from the other thread.", "Look what came in on my phone."],
    "calendar": ["Screenshot of the shared calendar.", "This is what the calendar shows."],
    "profile_card": ["Directory card."],
    "photo": ["Photo of the whiteboard.", "Snapped this in the meeting room."],
}
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
    "screenshots": "chat_screenshot",
    "images": "photo",
}
NOTE = {
    "spreadsheet": "{who} added a tab to the sheet.",
    "documents": "{who} uploaded a new document.",
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
RUMOUR = [
    "I heard the {label} of {name} might be {value}, nothing official though.",
    "Someone at the coffee machine said {name} {label} is {value} now?",
    "Rumour has it the {label} for {name} is {value}.",
]
CODE_LINES = [
    "{name} is filed as {code} in the tracker.",
    "For the record, {name} goes by {code} in our sheets.",
    "Heads-up: {code} is the reference for {name}.",
]
