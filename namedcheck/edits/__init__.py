"""Edits of the user's source: fixes of diagnostics (`fixes`) and inferred annotations (`infer`)."""
