"""Helper processes started isolated from the checked project: `python -I -S` (no PYTHON* variables, no user
site, neither the working directory nor a script's folder on sys.path, no site module: no sitecustomize,
usercustomize or .pth file runs), with exactly the path entries namedcheck needs appended after the standard
library's. Used by the daemon (`namedcheck daemon start`) and the mypy plugin's worker, so a project file named
`json.py`, `typing.py` or `libcst` is never imported by namedcheck."""

from __future__ import annotations

import os
import sys

OWN = ("namedcheck",)
# what the analysis imports besides the standard library: libcst and its YAML reader, typing_extensions
ANALYSIS_NEEDS = ("libcst", "yaml", "yaml_ft", "typing_extensions")


def path_entries(own: tuple[str, ...], needs: tuple[str, ...]) -> list[str]:
    """The path entries a helper needs: where this process found its own packages `own`, where it finds
    (or found) the packages `needs` names, never looked up in the working directory, then its site-packages
    folders (whose .pth files the helper does not run)."""
    import importlib.machinery
    import site
    import sysconfig

    here = os.path.realpath(os.getcwd())
    entries: list[str] = []
    search = [p for p in sys.path if p and os.path.isabs(p) and os.path.realpath(p) != here]

    def add(entry: str | None, own_entry: bool = False) -> None:
        if not entry or not os.path.isabs(entry) or not os.path.isdir(entry) or entry in entries:
            return
        if own_entry or os.path.realpath(entry) != here:
            entries.append(entry)

    for name in (*own, *needs):
        try:
            module = sys.modules.get(name)
            if module is not None:  # where this process imported it from
                spec = module.__spec__
            else:
                spec = importlib.machinery.PathFinder.find_spec(name, search)
        except (ImportError, ValueError, AttributeError):
            continue
        origin = spec.origin if spec is not None else None
        if spec is None or not origin or not os.path.isabs(origin):
            continue
        folder = os.path.dirname(origin)
        add(os.path.dirname(folder) if spec.submodule_search_locations is not None else folder, name in own)
    paths = sysconfig.get_paths()
    for key in ("purelib", "platlib"):
        add(paths.get(key))
    for entry in site.getsitepackages() if hasattr(site, "getsitepackages") else []:
        add(entry)
    if site.ENABLE_USER_SITE:
        add(site.getusersitepackages())
    return entries


def command(entries: list[str], module: str, args: list[str]) -> list[str]:
    """`python -I -S -c ...` running `module.main()` with `args` as sys.argv[1:] and `entries` on its path;
    the process exits with what `main` returns."""
    boot = f"import sys; sys.path.extend({entries!r}); from {module} import main; sys.exit(main())"
    return [sys.executable, "-I", "-S", "-c", boot, *args]
