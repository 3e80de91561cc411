"""Strands wiring: tools, the approval hook, model providers and the one agent factory."""
