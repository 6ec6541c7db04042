"""Output: rich tables for people, JSON for programs. Only cli/ calls these."""
