"""Measures of the server's shape around its database (print them).

Run from the repository: ``PYTHONPATH=src python tools/db_shape.py``. Reads the sources with
:mod:`ast` (and imports only the table modules, to count the tables Alembic's env.py sees):

1. modules that import no SQLAlchemy yet take a record, an error or ``utcnow`` from one that
   does (a record type tied to the database);
2. modules that define a table; 3. the tables ``migrations/env.py``'s metadata holds;
4. modules holding queries (SQLAlchemy constructs, or SQL text);
5. real sleeps in the room tests (``tests/test_rooms_*.py``).
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

SERVER = Path("src/chuhan/server")
SQL = re.compile(r"^\s*(SELECT|INSERT INTO|UPDATE|DELETE FROM|WITH) ")
QUERY_CALLS = ("select", "insert", "update", "delete", "text")


def modules() -> dict[str, tuple[Path, ast.Module]]:
    found = {}
    for path in sorted(SERVER.rglob("*.py")):
        if "migrations" in path.parts:
            continue
        name = ".".join(path.with_suffix("").relative_to("src").parts).removesuffix(".__init__")
        found[name] = (path, ast.parse(path.read_text()))
    return found


MODULES = modules()


def imports(name: str, tree: ast.Module) -> list[tuple[str, list[str]]]:
    """``(module, names)`` of every import, relative ones resolved."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = name.split(".")
                if MODULES[name][0].name != "__init__.py":
                    package = package[:-1]
                package = package[: len(package) - node.level + 1]
                base = ".".join(package + ([base] if base else []))
            out.append((base, [alias.name for alias in node.names]))
        elif isinstance(node, ast.Import):
            out.extend((alias.name, []) for alias in node.names)
    return out


def is_record(module: str, name: str) -> bool:
    """A dataclass, an exception, or the clock's ``utcnow`` / the JSON of a game record."""
    for node in MODULES[module][1].body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            dataclass = any("dataclass" in ast.unparse(d) for d in node.decorator_list)
            error = any(ast.unparse(b).endswith(("Error", "Exception")) for b in node.bases)
            return dataclass or error
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return name in ("utcnow", "game_to_json", "game_from_json")
    return False


def has_query(name: str, tree: ast.Module, uses_sqlalchemy: bool) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL.match(node.value):
            return True
        if uses_sqlalchemy and isinstance(node, ast.Call):
            call = node.func
            if isinstance(call, ast.Name) and call.id in QUERY_CALLS:
                return True
            if (
                isinstance(call, ast.Attribute)
                and call.attr in QUERY_CALLS[1:4]
                and not node.args
                and not node.keywords
            ):
                return True
    return False


def main() -> None:
    sqlalchemy = {
        name
        for name, (_, tree) in MODULES.items()
        if any(base.split(".")[0] == "sqlalchemy" for base, _ in imports(name, tree))
    }
    print(f"modules importing SQLAlchemy: {len(sqlalchemy)}")
    tied = []
    for name, (_, tree) in MODULES.items():
        if name in sqlalchemy:
            continue
        taken = [
            (base, [n for n in names if is_record(base, n)])
            for base, names in imports(name, tree)
            if base in sqlalchemy
        ]
        taken = [(base, names) for base, names in taken if names]
        if taken:
            tied.append((name, taken))
    print(f"1. modules without SQLAlchemy taking records from SQLAlchemy modules: {len(tied)}")
    for name, taken in tied:
        print("     ", name, "<-", "; ".join(f"{b}: {', '.join(n)}" for b, n in taken))
    tables = [n for n, (p, _) in MODULES.items() if re.search(r"\bTable\(", p.read_text())]
    print(f"2. modules defining tables: {len(tables)} {tables}")
    env = (SERVER / "migrations" / "env.py").read_text()
    target = re.search(r"from (chuhan[\w.]+) import metadata", env)
    assert target is not None
    script = "import importlib\n" + "".join(f"importlib.import_module('{t}')\n" for t in tables)
    script += f"from {target.group(1)} import metadata\nprint(*sorted(metadata.tables))"
    every = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout.split()
    own = (Path("src") / (target.group(1).replace(".", "/") + ".py")).read_text()
    print(
        f"3. tables env.py's module ({target.group(1)}) defines: {own.count(' = Table(')}"
        f" of the {len(every)} the server has"
    )
    queries = [n for n, (_, t) in MODULES.items() if has_query(n, t, n in sqlalchemy)]
    print(f"4. modules with queries: {len(queries)} {queries}")
    total = 0
    for path in sorted(Path("tests").glob("test_rooms_*.py")):
        count = len(re.findall(r"\b(?:time|asyncio)\.sleep\(", path.read_text()))
        total += count
        if count:
            print(f"      {path.name}: {count}")
    print(f"5. real sleeps in tests/test_rooms_*.py: {total}")


if __name__ == "__main__":
    main()
