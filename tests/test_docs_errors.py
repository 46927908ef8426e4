"""docs/errors.md stays true: its snippets print what it says, and it lists every message.

Each ```python block followed by a ```text block is run in a fresh process (forked from one
that imported dyngrad, so numbering such as backward passes starts afresh); what it prints,
its warnings and its error (as `Type: message`) must match the text block. The catalogue at
the end of the doc lists every message template found in the source; after adding or changing
a message, regenerate it with

    DYNGRAD_WRITE_ERRORS_DOC=1 python -m pytest tests/test_docs_errors.py -k catalogue
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import dyngrad

DOC = Path(__file__).resolve().parents[1] / "docs" / "errors.md"
SRC = Path(dyngrad.__file__).resolve().parent

RUNNER = r"""
import json, os, re, sys, warnings
import dyngrad

def show(message, category, filename, lineno, file=None, line=None):
    print(f"{category.__name__}: {message}")

results = []
for code in json.loads(sys.stdin.read()):
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        os.dup2(write, 1)
        os.dup2(write, 2)
        warnings.showwarning = show
        try:
            exec(compile(code, "snippet.py", "exec"), {"__name__": "__main__"})
        except Exception as exc:
            print(f"{type(exc).__name__}: {exc}")
        sys.stdout.flush()
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:  # a traceback's frame of this runner is no user's line
        results.append(re.sub(r'  File "<string>", line \d+, in <module>\n', "", pipe.read()))
    os.waitpid(pid, 0)
sys.stdout.write(json.dumps(results))
"""


def doc_snippets() -> list[tuple[str, str]]:
    """The (program, output) pairs of docs/errors.md: a python block, then a text block."""
    text = DOC.read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```\n\n```text\n(.*?)```", text, flags=re.S)


def normalize(text: str) -> str:
    text = re.sub(r"0x[0-9a-f]+", "0x…", text)
    return text.rstrip("\n")


@pytest.fixture(scope="module")
def outputs() -> list[str]:
    if not hasattr(os, "fork"):
        pytest.skip("the snippet runner needs os.fork")
    programs = [program for program, _ in doc_snippets()]
    done = subprocess.run(
        [sys.executable, "-c", RUNNER],
        input=json.dumps(programs),
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return json.loads(done.stdout)


def test_the_doc_has_snippets():
    assert len(doc_snippets()) >= 25


@pytest.mark.parametrize("number", range(len(doc_snippets())))
def test_snippet_prints_what_the_doc_says(number, outputs):
    program, printed = doc_snippets()[number]
    expected, actual = normalize(printed), normalize(outputs[number])
    error_lines = [
        line for line in expected.splitlines() if re.match(r"\w+(Error|Warning): ", line)
    ]
    for line in error_lines:  # the first line of each error or warning: PyTorch's sentence
        assert line in actual.splitlines(), f"{line!r} no longer printed by:\n{program}\n{actual}"
    assert actual == expected, f"docs/errors.md is stale for:\n{program}"


# ---- the catalogue -------------------------------------------------------------------------
# area -> the source paths (relative to src/dyngrad) whose messages it lists
AREAS = {
    "autograd": (
        "autograd/",
        "graph/",
        "utils/checkpoint",
        "_tensor.py",
        "_tensor_str.py",
        "size.py",
        "return_types.py",
    ),
    "ops": ("ops/", "linalg", "special", "fft"),
    "backend": ("backend/", "cuda", "backends"),
    "nn": ("nn/",),
    "optim": ("optim/",),
    "data": ("utils/",),
    "saving": (
        "serialization",
        "_checkpoint",
        "_torch_checkpoint",
        "_safetensors",
        "_safe_globals",
    ),
    "tools": ("viz/", "amp/", "compile", "doctor", "cli", "__main__", "_torch_alias"),
}
PLACEHOLDER = "{…}"


def _template(expr, consts: dict) -> str | None:
    """A message's text with `{…}` for what is computed, or None if nothing is literal."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return expr.value
    if isinstance(expr, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else PLACEHOLDER for v in expr.values)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        left, right = _template(expr.left, consts), _template(expr.right, consts)
        if left is None:
            return None
        return left + (right if right is not None else PLACEHOLDER)
    if isinstance(expr, ast.Name):
        return consts.get(expr.id)
    return None


def _constants(trees) -> dict:
    """Module-level string constants of the package, by name (`SECOND_BACKWARD`, ...)."""
    consts: dict = {}
    for tree in trees:
        for node in tree.body:
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
            ):
                value = _template(node.value, consts)
                if value is not None and node.targets[0].id.isupper():
                    consts[node.targets[0].id] = value
    return consts


def _kind(call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name) and re.fullmatch(r"[A-Z]\w*(Error|Exception|Warning)", func.id):
        return func.id
    if (
        isinstance(func, ast.Attribute)
        and func.attr == "warn"
        and isinstance(func.value, ast.Name)
        and func.value.id == "warnings"
    ):
        category = (
            call.args[1]
            if len(call.args) > 1
            else next((k.value for k in call.keywords if k.arg == "category"), None)
        )
        return category.id if isinstance(category, ast.Name) else "UserWarning"
    return None


def source_messages() -> dict[str, set[tuple[str, str]]]:
    """`{area: {(kind, template)}}` for every error or warning built from literal text."""
    files = sorted(p for p in SRC.rglob("*.py"))
    trees = {p: ast.parse(p.read_text(encoding="utf-8")) for p in files}
    consts = _constants(trees.values())
    found: dict = {area: set() for area in AREAS}
    for path, tree in trees.items():
        rel = path.relative_to(SRC).as_posix()
        area = next(
            (a for a, prefixes in AREAS.items() if any(rel.startswith(p) for p in prefixes)),
            "tools",
        )
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and node.args and (kind := _kind(node)):
                text = _template(node.args[0], consts)
                if text and len(text.replace(PLACEHOLDER, "").strip()) >= 8:
                    found[area].add((kind, " ".join(text.split())))
    return found


def _listing(messages: set) -> str:
    rows = []
    for kind, text in sorted(messages, key=lambda m: (m[1].lower(), m[0])):
        rows.append(f"- {kind}: `` {text} ``")
    return "\n".join(rows)


def test_catalogue_lists_every_message():
    doc = DOC.read_text(encoding="utf-8")
    messages = source_messages()
    if os.environ.get("DYNGRAD_WRITE_ERRORS_DOC"):
        for area, found in messages.items():
            doc, n = re.subn(
                rf"(<!-- messages: {area} -->\n)(?:- .*\n)*(<!-- end messages -->)",
                lambda m, f=found: m.group(1) + _listing(f) + "\n" + m.group(2),
                doc,
            )
            assert n == 1, f"docs/errors.md has no block for area {area!r}"
        DOC.write_text(doc, encoding="utf-8")
    missing = [
        f"{area}: {kind}: {text}"
        for area, found in messages.items()
        for kind, text in sorted(found)
        if f"- {kind}: `` {text} ``" not in doc
    ]
    assert not missing, (
        "messages missing from docs/errors.md (regenerate the catalogue, see "
        "this file's docstring):\n" + "\n".join(missing)
    )


def test_catalogue_has_no_stale_messages():
    doc = DOC.read_text(encoding="utf-8")
    listed = set(re.findall(r"^- (\w+): `` (.*) ``$", doc, flags=re.M))
    current = set().union(*source_messages().values())
    stale = sorted(listed - current)
    assert not stale, "docs/errors.md lists messages dyngrad no longer has:\n" + "\n".join(
        f"{k}: {t}" for k, t in stale
    )
