"""Compiled copies of the rules core and the search (mypyc), used only while they match the source.

The pure-Python modules in ``src/`` are the source and the fallback. ``python -m chuhan.native
build`` (run by ``make install`` and ``make test``) copies the package to a scratch directory,
compiles :data:`MODULES` there with mypyc, and puts the extension modules in a directory
outside ``src/`` (``<venv>/chuhan-native``; ``CHUHAN_NATIVE_DIR`` overrides) together with a
manifest holding the SHA-256 of every source it compiled.

On ``import chuhan``, :func:`activate` reads the manifest and installs an import finder that
serves the compiled modules, but only when every compiled source on disk still has the hash it
was compiled from: the modules are one mypyc group that calls itself natively, so it is all or
nothing. An edit to any of them therefore switches the whole group back to pure Python until
the next build, never a stale compiled copy (``make`` rebuilds when a source is newer than the
manifest). ``CHUHAN_PURE_PYTHON=1`` forces the pure modules. :func:`status` says which is in
use and why; ``tests/test_native.py`` fails when a build exists and is not used.

A machine without a C compiler or Python headers gets a manifest that records why nothing was
compiled, and runs the pure modules; a compiler error with a compiler present fails the build.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

# The hot paths: move generation and make/unmake, the evaluation and the search, with every
# module that subclasses one of their classes (mypyc's native classes cannot be subclassed
# from interpreted code, so a compiled class's subclasses are compiled with it).
MODULES = (
    "chuhan.rules.geometry",
    "chuhan.rules.board",
    "chuhan.rules.janggi",
    "chuhan.rules.jieqi",
    "chuhan.rules.wxf",  # the WXF repetition verdict, which the search asks of its cycles
    "chuhan.engine.evaluation",
    "chuhan.engine.search",
    "chuhan.engine.jieqi",
    "chuhan.engine.variants",
)
PURE_ENV = "CHUHAN_PURE_PYTHON"
DIR_ENV = "CHUHAN_NATIVE_DIR"
MANIFEST = "manifest.json"
PACKAGE_DIR = Path(__file__).resolve().parent


def native_dir() -> Path:
    """Where the compiled modules and their manifest live (outside ``src/``)."""
    return Path(os.environ.get(DIR_ENV) or Path(sys.prefix) / "chuhan-native")


def source_path(module: str) -> Path:
    """The ``.py`` file of one of :data:`MODULES` in this package."""
    return PACKAGE_DIR.joinpath(*module.split(".")[1:]).with_suffix(".py")


def source_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass(frozen=True)
class Status:
    """Whether the compiled modules are in use (``active``) and, if not, why (``reason``).

    ``built`` is True when a build produced compiled modules for this interpreter.
    """

    active: bool
    built: bool
    reason: str
    files: dict[str, Path]


def plan(directory: Path) -> Status:
    """Read the manifest in ``directory`` and decide whether its modules may be used."""
    manifest_path = directory / MANIFEST
    if not manifest_path.exists():
        return Status(False, False, f"no build in {directory} (run `make install`)", {})
    try:
        manifest = json.loads(manifest_path.read_text())
    except (OSError, ValueError) as exc:
        return Status(False, False, f"unreadable manifest {manifest_path}: {exc}", {})
    if not manifest.get("compiled"):
        return Status(False, False, f"not compiled: {manifest.get('reason', 'unknown')}", {})
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    if manifest.get("suffix") != suffix:
        return Status(False, False, f"built for {manifest.get('suffix')}, not {suffix}", {})
    built = manifest.get("modules", {})
    if sorted(built) != sorted(MODULES):
        return Status(False, True, "the build compiled another set of modules", {})
    files: dict[str, Path] = {}
    for module, entry in built.items():
        if source_hash(source_path(module)) != entry["sha256"]:
            return Status(
                False,
                True,
                f"{source_path(module).name} ({module}) changed since the build "
                "(run `make` to rebuild)",
                {},
            )
        files[module] = directory / entry["file"]
    for name, entry in manifest.get("support", {}).items():
        files[name] = directory / entry
    missing = [str(path) for path in files.values() if not path.exists()]
    if missing:
        return Status(False, True, f"missing compiled files: {', '.join(missing)}", {})
    if os.environ.get(PURE_ENV):
        return Status(False, True, f"{PURE_ENV} is set", files)
    return Status(True, True, "compiled modules match their sources", files)


class _Finder(importlib.abc.MetaPathFinder):
    """Serves the compiled extension modules of a build whose sources all match."""

    def __init__(self, files: dict[str, Path]) -> None:
        self.files = files

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        file = self.files.get(fullname)
        if file is None:
            return None
        return importlib.util.spec_from_file_location(fullname, file)


_status: Status | None = None


def activate() -> Status:
    """Install the finder for a matching build (once per process); returns the status."""
    global _status
    if _status is None:
        _status = plan(native_dir())
        if _status.active:
            already = [m for m in MODULES if m in sys.modules]
            if already:  # imported before chuhan itself: cannot switch any more
                _status = Status(False, True, f"imported too early: {', '.join(already)}", {})
            else:
                sys.meta_path.insert(0, _Finder(_status.files))
    return _status


def status() -> Status:
    """The status :func:`activate` decided for this process."""
    return activate()


def is_compiled(module: ModuleType) -> bool:
    """True when ``module`` was loaded from a compiled extension."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    return str(getattr(module, "__file__", "")).endswith(suffixes)


# ---------------------------------------------------------------------- build


def _no_compiler_reason() -> str | None:
    """Why this machine cannot compile extension modules, or None when it can."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler})"
    include = sysconfig.get_paths()["include"]
    if not (Path(include) / "Python.h").exists():
        return f"no Python headers ({include}/Python.h)"
    try:
        import mypyc  # noqa: F401
    except ImportError:
        return "mypyc is not installed (it comes with the dev extra's mypy)"
    return None


def _write_manifest(directory: Path, manifest: dict[str, object]) -> None:
    temp = directory / (MANIFEST + ".tmp")
    temp.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    temp.replace(directory / MANIFEST)


def build(directory: Path) -> Status:
    """Compile :data:`MODULES` into ``directory``; returns the resulting status.

    Raises subprocess.CalledProcessError when mypyc or the compiler fails although a
    compiler is present (a source mypyc cannot compile must not pass unnoticed).
    """
    directory.mkdir(parents=True, exist_ok=True)
    (directory / MANIFEST).unlink(missing_ok=True)  # a failed build leaves nothing in use
    reason = _no_compiler_reason()
    if reason is not None:
        _write_manifest(directory, {"compiled": False, "reason": reason})
        return plan(directory)
    with tempfile.TemporaryDirectory(prefix="chuhan-mypyc-") as scratch:
        work = Path(scratch)
        shutil.copytree(
            PACKAGE_DIR,
            work / "chuhan",
            ignore=shutil.ignore_patterns("__pycache__", "*.so", "web", "migrations", "*.ini"),
        )
        sources = {m: work.joinpath(*m.split(".")).with_suffix(".py") for m in MODULES}
        hashes = {m: source_hash(path) for m, path in sources.items()}
        paths = [str(path.relative_to(work)) for path in sources.values()]
        # One group, without mypyc's whole-program assumptions ("separate"): with them, a
        # compiled method accepts only the subclasses it was compiled with, and the board
        # classes must accept any subclass (tests and callers derive their own).
        (work / "setup.py").write_text(
            "from setuptools import setup\n"
            "from mypyc.build import mypycify\n"
            f"paths = {paths!r}\n"
            "setup(name='chuhan-native', py_modules=[],\n"
            "      ext_modules=mypycify(paths, separate=[(paths, None)], opt_level='3'))\n"
        )
        subprocess.run(
            [sys.executable, "setup.py", "-q", "build_ext", "--inplace"],
            cwd=work,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
        for old in directory.rglob("*" + suffix):
            old.unlink()
        modules: dict[str, dict[str, str]] = {}
        for module, source in sources.items():
            compiled = source.with_name(source.stem + suffix)
            relative = compiled.relative_to(work)
            (directory / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(compiled, directory / relative)
            modules[module] = {"file": str(relative), "sha256": hashes[module]}
        # The group's shared library, imported by its top-level name from each module.
        support = {}
        for shared in work.glob("*__mypyc" + suffix):
            shutil.copy2(shared, directory / shared.name)
            support[shared.name[: -len(suffix)]] = shared.name
    _write_manifest(
        directory, {"compiled": True, "suffix": suffix, "modules": modules, "support": support}
    )
    return plan(directory)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["build"]:
        result = build(native_dir())
        print(f"chuhan.native: {result.reason} ({native_dir()})")
        return 0
    if args[:1] == ["status"]:
        print(f"chuhan.native: {status().reason} ({native_dir()})")
        return 0
    print("usage: python -m chuhan.native build|status", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
