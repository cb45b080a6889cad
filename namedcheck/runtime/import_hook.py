"""`namedcheck.install_import_hook('mypkg')`: `@checked` on every annotated function of a package.

A finder placed first on `sys.meta_path` lets the usual finders locate each module of the named
packages and wraps its loader: once the module has run, every function it defines (and every method
of the classes it defines) whose annotations hold an array type is replaced by `checked(fn)` in the
module's namespace. Calls inside the module look functions up there, so they are checked too.
Modules imported before the hook was installed are left as they are.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import inspect
import sys
import types
import warnings
from collections.abc import Iterable, Sequence
from typing import Any

from namedcheck.runtime.checked import checked, signature_of

_MARK = "__namedcheck_checked__"


def _annotated(fn: Any) -> bool:
    try:
        sig = signature_of(fn)
    except Exception:  # annotations that do not evaluate, builtins without a signature
        return False
    return sig.returns is not None or any(p.annotation is not None for p in sig.params)


def _wrap(fn: Any) -> Any:
    if getattr(fn, _MARK, False) or not _annotated(fn):
        return None
    wrapped = checked(fn)
    if wrapped is fn:
        return None
    setattr(wrapped, _MARK, True)
    return wrapped


def check_module(module: types.ModuleType) -> list[str]:
    """Apply `checked` to the annotated functions and methods `module` defines; their qualified names."""
    done: list[str] = []
    for name, value in list(vars(module).items()):
        if inspect.isfunction(value) and value.__module__ == module.__name__:
            wrapped = _wrap(value)
            if wrapped is not None:
                setattr(module, name, wrapped)
                done.append(value.__qualname__)
        elif inspect.isclass(value) and value.__module__ == module.__name__:
            done += _check_class(value)
    return done


def _check_class(cls: type) -> list[str]:
    done: list[str] = []
    for name, raw in list(vars(cls).items()):
        fn = raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else raw
        if not inspect.isfunction(fn):
            continue
        wrapped = _wrap(fn)
        if wrapped is None:
            continue
        setattr(cls, name, type(raw)(wrapped) if isinstance(raw, (staticmethod, classmethod)) else wrapped)
        done.append(fn.__qualname__)
    return done


class _CheckingLoader(importlib.abc.Loader):
    """Runs the real loader, then checks the module's functions."""

    def __init__(self, inner: importlib.abc.Loader) -> None:
        self.inner = inner

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return self.inner.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        self.inner.exec_module(module)
        check_module(module)

    def __getattr__(self, name: str) -> Any:  # get_source, get_code, is_package, ... of the real loader
        return getattr(self.inner, name)


class ImportHook(importlib.abc.MetaPathFinder):
    """The installed hook; `uninstall()` (or leaving a `with` block) removes it."""

    def __init__(self, packages: Sequence[str]) -> None:
        self.packages = tuple(packages)

    def _wanted(self, fullname: str) -> bool:
        return any(fullname == p or fullname.startswith(p + ".") for p in self.packages)

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if not self._wanted(fullname):
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _CheckingLoader(spec.loader)
                return spec
        return None

    def uninstall(self) -> None:
        if self in sys.meta_path:
            sys.meta_path.remove(self)

    def __enter__(self) -> ImportHook:
        return self

    def __exit__(self, *exc: object) -> None:
        self.uninstall()


def install_import_hook(packages: str | Iterable[str]) -> ImportHook:
    """Check every annotated function of `packages` (a name or names; subpackages included) with
    `@namedcheck.checked` when its modules are imported after this call. Returns the hook: call
    `.uninstall()` or use it as a context manager to stop checking new imports."""
    names = [packages] if isinstance(packages, str) else list(packages)
    if not names or not all(isinstance(n, str) and n for n in names):
        raise TypeError(f"install_import_hook expects a package name or names such as 'mypkg'; found {packages!r}")
    hook = ImportHook(names)
    sys.meta_path.insert(0, hook)
    _warn_if_imported(hook)
    return hook


class ImportedTooEarly(UserWarning):
    """`install_import_hook` was called after (some of) its packages were imported: those modules stay unchecked."""


def _warn_if_imported(hook: ImportHook) -> None:
    early = sorted(m for m in list(sys.modules) if hook._wanted(m))
    if not early:
        return
    shown = ", ".join(early[:3]) + (f" and {len(early) - 3} more" if len(early) > 3 else "")
    first = hook.packages[0] if len(hook.packages) == 1 else hook.packages
    warnings.warn(
        f"install_import_hook({first!r}) was called after {shown} had been imported: the hook checks modules "
        f"as they are imported, so the functions of {'this module' if len(early) == 1 else 'these modules'} "
        f"are not checked. Install the hook before the first `import {early[0].split('.')[0]}` (e.g. at the "
        f"top of your entry point or in the package's conftest.py), or decorate the functions with @checked",
        ImportedTooEarly,
        stacklevel=3,
    )
