"""Every ```python block of docs/*.md and README.md runs against the current code.

How the blocks run:

- One Markdown file is one test, run in a Python process of its own (so a block that registers an
  attribution method, sets torch's threads or changes the environment cannot leak into other files or
  into the rest of the test session).
- The blocks of a file run in order in one namespace: a later block may use what an earlier block of the
  same file defined (``text``, ``pipeline``, ...). Nothing is shared between files.
- The working folder is a fresh temporary folder, and ``MEALWATCH_HOME`` a fresh temporary folder whose
  ``runs/`` holds one "trained" model, as ``mealwatch train`` would leave it: the bundled
  all-MiniLM-L6-v2 with an untrained head over the complaint labels (saved once per session, no training).
  So ``Pipeline.load()`` and ``create_app()`` find a model; its numbers differ from the ones the docs
  quote, which come from a real run. ``MEALWATCH_MODEL`` is unset.
- A block's traceback names the Markdown file and its line there.
- A block that must not run is marked by an HTML comment on the line just before its fence:
  ``<!-- no-test: why -->``. Each such block is listed as a skipped test with its reason. A marker that is
  not followed by a python block, or gives no reason, is an error.

Only the blocks' exit is checked, not what they print.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
LANGUAGES = ("python", "py")
NO_TEST = re.compile(r"^\s*<!--\s*no-test:(.*?)-->\s*$")
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")
TIMEOUT_S = 240  # one file; the whole test takes well under a minute


@dataclass
class Block:
    file: Path
    line: int  # 1-based line of the opening fence
    language: str
    code: str
    skip: str | None  # the no-test reason, if the block is marked

    @property
    def where(self) -> str:
        return f"{self.file.relative_to(ROOT)}:{self.line}"


def blocks_of(path: Path) -> list[Block]:
    """Every fenced code block of a Markdown file, with the no-test reason written just before it."""
    lines = path.read_text(encoding="utf-8").splitlines()
    out: list[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, language = m.group(1), m.group(2), m.group(3).lower()
        body, j = [], i + 1
        while j < len(lines) and not re.match(rf"^\s*{fence[0]}{{{len(fence)},}}\s*$", lines[j]):
            body.append(lines[j][len(indent) :] if lines[j].startswith(indent) else lines[j])
            j += 1
        marker = NO_TEST.match(lines[i - 1]) if i > 0 else None
        skip = marker.group(1).strip() if marker else None
        out.append(Block(path, i + 1, language, textwrap.dedent("\n".join(body)) + "\n", skip))
        i = j + 1
    return out


def python_blocks(path: Path) -> list[Block]:
    return [b for b in blocks_of(path) if b.language in LANGUAGES]


def markers_of(path: Path) -> list[tuple[int, str]]:
    """(line, reason) of every no-test marker in the file."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [(n, m.group(1).strip()) for n, line in enumerate(lines, start=1) if (m := NO_TEST.match(line))]


#: runs inside the child process: argv[1] is a JSON list of {"file", "line", "code"}
RUNNER = """
import json, sys, traceback, types

blocks = json.load(open(sys.argv[1], encoding="utf-8"))
module = types.ModuleType("__main__")  # the blocks' namespace: one per file, like a script's
sys.modules["__main__"] = module
for block in blocks:
    # blank lines first, so that tracebacks give the line numbers of the Markdown file
    code = compile("\\n" * block["line"] + block["code"], block["file"], "exec")
    try:
        exec(code, module.__dict__)
    except BaseException:
        traceback.print_exc()
        print(f"the python block at {block['file']}:{block['line']} failed", file=sys.stderr)
        sys.exit(1)
    sys.stdout.flush()
"""


@pytest.fixture(scope="session")
def trained_model(tmp_path_factory) -> Path:
    """A model folder as ``mealwatch train`` writes it: bundled MiniLM, an untrained head over the complaint labels."""
    import torch

    from mealwatch import LABELS, Encoder, Tokenizer
    from mealwatch.classifier import Classifier, ClassifierConfig
    from mealwatch.pipeline import Pipeline

    torch.manual_seed(0)
    model = Classifier(Encoder.from_pretrained(), ClassifierConfig(list(LABELS), multi_label=True)).eval()
    with torch.no_grad():
        model.head.bias.fill_(-1.0)  # no label clears 0.5, so each text gets one (the cheapest to explain)
    folder = tmp_path_factory.mktemp("docs-model") / "20250131-142530"
    Pipeline(model, Tokenizer.from_pretrained()).save(folder)
    return folder


def _skip_params() -> list:
    skipped = [b for f in FILES for b in python_blocks(f) if b.skip]
    return [pytest.param(b, id=b.where) for b in skipped] or [pytest.param(None, id="none")]


@pytest.mark.parametrize("path", [f for f in FILES if python_blocks(f)], ids=lambda p: str(p.relative_to(ROOT)))
def test_python_blocks_run(path: Path, trained_model: Path, tmp_path: Path) -> None:
    runnable = [b for b in python_blocks(path) if not b.skip]
    if not runnable:
        pytest.skip(f"every python block of {path.name} is marked no-test")
    home, work = tmp_path / "home", tmp_path / "work"
    (home / "runs").mkdir(parents=True)
    work.mkdir()
    (home / "runs" / trained_model.name).symlink_to(trained_model, target_is_directory=True)
    spec = tmp_path / "blocks.json"
    rel = str(path.relative_to(ROOT))
    spec.write_text(json.dumps([{"file": rel, "line": b.line, "code": b.code} for b in runnable]), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "MEALWATCH_MODEL"}
    path_before = [env["PYTHONPATH"]] if env.get("PYTHONPATH") else []
    env.update(
        MEALWATCH_HOME=str(home), MPLBACKEND="Agg", PYTHONPATH=os.pathsep.join([str(ROOT / "src"), *path_before])
    )
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, str(spec)],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    )
    if done.returncode != 0:
        pytest.fail(f"{rel}:\n{done.stdout[-3000:]}\n{done.stderr[-6000:]}", pytrace=False)


@pytest.mark.parametrize("block", _skip_params())
def test_blocks_marked_no_test_are_listed(block: Block | None) -> None:
    """One skipped test per block marked ``<!-- no-test: why -->``, so that ``-ra`` lists each with its reason."""
    if block is None:
        return
    pytest.skip(f"{block.where}: no-test: {block.skip}")


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_test_markers_sit_on_a_python_block_and_say_why(path: Path) -> None:
    marked = {b.line - 1: b for b in python_blocks(path) if b.skip is not None}
    for line, reason in markers_of(path):
        assert line in marked, f"{path.name}:{line}: a no-test marker must be the line just before a ```python fence"
        assert reason, f"{path.name}:{line}: say why the block must not run: <!-- no-test: reason -->"


def test_blocks_and_markers_are_read_as_markdown_writes_them(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "text\n```bash\nls\n```\n<!-- no-test: needs the network -->\n```python\nimport urllib\n```\n"
        "1. a list item:\n\n   ```python\n   x = 1\n   ```\n~~~py\ny = 2\n~~~\n",
        encoding="utf-8",
    )
    found = python_blocks(page)
    assert [(b.line, b.code, b.skip) for b in found] == [
        (6, "import urllib\n", "needs the network"),
        (11, "x = 1\n", None),
        (14, "y = 2\n", None),
    ]
    assert markers_of(page) == [(5, "needs the network")]


IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def names_in_code(files) -> tuple[set[str], set[str]]:
    """Every identifier the files hold (names, words in strings, their paths) and the functions and classes they
    define."""
    import ast
    import io
    import tokenize

    known, defined = set(), set()
    for file in files:
        known.update(IDENTIFIER.findall(file.name))
        source = file.read_text(encoding="utf-8")
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type in (tokenize.NAME, tokenize.STRING):
                known.update(IDENTIFIER.findall(token.string))
        tree = ast.parse(source)
        defined.update(n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.ClassDef))
    return known, defined


def test_every_name_architecture_md_shows_exists() -> None:
    """A name in backquotes in docs/architecture.md is one the code (or the doc's own examples) holds, and a call
    shown as ``name(...)`` is of a function or class the code defines: the document cannot drift to a name that
    was renamed or never existed."""
    source = ROOT / "src" / "mealwatch"
    files = sorted(source.rglob("*.py")) + sorted((ROOT / "tests").glob("*.py"))
    known, defined = names_in_code(files)
    known.update(IDENTIFIER.findall(" ".join(str(p.relative_to(source)) for p in source.rglob("*"))))
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    examples = re.findall(r"```.*?```", text, flags=re.S)  # what the "Adding ..." sections write themselves
    known.update(IDENTIFIER.findall(" ".join(examples)))
    unknown, not_defined = [], []
    for span in re.findall(r"`([^`]+)`", re.sub(r"```.*?```", "", text, flags=re.S)):
        code = re.sub(r"\"[^\"]*\"|'[^']*'", "", span)  # quoted strings are examples of text, not names
        unknown += [f"{word} (in `{span}`)" for word in IDENTIFIER.findall(code) if word not in known]
        not_defined += [f"{call} (in `{span}`)" for call in re.findall(r"(\w+)\(", code) if call not in defined]
    assert not unknown, f"docs/architecture.md names what the code does not hold: {unknown}"
    assert not not_defined, f"docs/architecture.md calls what the code does not define: {not_defined}"
