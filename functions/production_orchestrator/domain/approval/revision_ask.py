"""A revision asked through the workflow (AWS): the approval of version N closes before version N+1 exists.

    pending --an approver's guidance (the decision page)--> superseded, revision_asked, successor_version N+1
          --woken: SendTaskSuccess {"revise": true}-------> the workflow plans version N+1 with the guidance
          --version N+1's approval created-------------> linked: superseded_by, successor_hash
          --or it could not be planned (RevisionNotPlanned)--> not_planned: why (the request ends there)

Locally the agent plans the next version inside the request and closes version N in the same transaction
(services/runs/revise.py). In AWS the decision function may not run the agent (no strands there), so it records
the ask instead, conditioned on version N still being open: from then on version N is refused (SUPERSEDED) to
every path, a second ask loses the race, and only the workflow, woken once, plans version N+1. The transitions
are in revising.py (this module is what the approval record holds).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ..planning.guidance import Guidance
from ..records import Timestamp

NOT_PLANNED_CHARS = 600


class RevisionAsk(BaseModel):
    """Who asked for the next version, when, and with what guidance."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    given_by: str = Field(min_length=1, max_length=300, pattern=r"^[^\x00-\x1f\x7f]+$")
    asked_at: Timestamp
    guidance: Guidance
    # Why the workflow could not plan the version asked for; left out while empty, so an ask's stored text stays.
    not_planned: str = Field(default="", max_length=NOT_PLANNED_CHARS, exclude_if=lambda v: not v)
