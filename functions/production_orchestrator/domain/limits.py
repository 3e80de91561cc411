"""The bounds, defaults and names a command's help shows, apart from the models that enforce them.

Pure constants, no imports: the CLI's parser reads them to write its help without importing pydantic or the
shop model (``--help`` answers at once); the modules that enforce each bound import it from here.
"""

from __future__ import annotations

# The longest reason a decision may carry (the page's textarea and the CLI say the same).
MAX_REASON_CHARS = 2000
# The planning solver's budget in work, never in time: branch-and-bound nodes per objective stage.
DEFAULT_NODES = 200
# The most units one order holds (a number past it in an e-mail is no count: a telephone number in groups).
MAX_QUANTITY = 10_000_000
# Who decides on a local run started without --approvers.
DEFAULT_APPROVER = "shop-owner"
# When approvers who have not voted are reminded (domain/approval/reminders.py reads the points).
DEFAULT_REMINDER_POINTS = ("halfway", "24h")
# The reference scenarios (DESIGN.md section 3): name -> (title, target order).
SCENARIO_TITLES = {
    "rush-order": ("Rush crest patches for Northside FC", "RUSH-200"),
    "team-jerseys": ("Team jerseys for Riverside United", "JERSEY-310"),
    "metallic-monogram": ("Gold monograms for the Grand Hotel", "GOLD-500"),
}
# The longest note an approver may leave the agent with a revision.
MAX_NOTE_CHARS = 1000
# How many versions a request's plan may have (the first and its revisions): a revision of the last is refused
# (VERSION_LIMIT). On AWS the execution's timeout is sized for this many windows (infra/settings.py, maxVersions).
DEFAULT_MAX_VERSIONS = 5
MAX_VERSIONS = 20
