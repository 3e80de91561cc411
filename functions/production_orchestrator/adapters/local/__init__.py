"""The embedded local store: SQLite for the shop, Strands FileSessionManager for sessions."""
