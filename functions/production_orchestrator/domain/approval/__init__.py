"""Approval: the record and its policy, the one rule every decision path asks (``authority``), signed
receipts, the audit chain, decision claims and the resume gate (``verification``)."""
