"""The libcst front end: translates syntax into engine calls and engine failures into diagnostics."""
