"""Every registered pass runs in a lit test, and every rewrite rule is named
in a lit test of its pass.

Passes: each name of :data:`xtvm.passes.registry.PASSES` appears in the
``-p`` pipeline of some ``RUN:`` line under ``test/lit``. Rules: a pass that
applies declarative rules keeps them as its ``RULES``
(:func:`xtvm.rewrite.documents_rules`); each rule's name appears (as a whole
word, usually in the comment above the case that shows it) in a lit file
that runs that pass. A rule written with ``rewrite(..., name=...)`` anywhere
in ``xtvm/`` must be in some registered pass's ``RULES``, so no rule list is
missed.

The checkers also run on a small bad example they must catch.
"""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from xtvm.passes.registry import PASSES

ROOT = Path(__file__).resolve().parents[2]
LIT = ROOT / "test" / "lit"

_PIPELINE = re.compile(r"""\s-p\s+(?:'([^']*)'|"([^"]*)"|(\S+))""")
_OPTIONS = re.compile(r"\{[^}]*\}")


def pipeline_passes(run_line: str) -> set[str]:
    """The pass names in the ``-p`` pipelines of one RUN line (options dropped)."""
    names = set()
    for match in _PIPELINE.finditer(run_line):
        pipeline = _OPTIONS.sub("", next(g for g in match.groups() if g is not None))
        names.update(p.strip() for p in pipeline.split(",") if p.strip())
    return names


def lit_files(root: Path) -> dict[Path, str]:
    """Every lit test file under ``root`` and its text."""
    return {p: p.read_text() for p in sorted(root.rglob("*.mlir")) if "Output" not in p.parts}


def passes_run(text: str) -> set[str]:
    """The passes a lit file's RUN lines run."""
    return set().union(*(pipeline_passes(line) for line in text.splitlines() if "RUN:" in line))


def untested_passes(names: Sequence[str], files: Mapping[Path, str]) -> list[str]:
    """The pass names no lit file runs."""
    run = set().union(*(passes_run(text) for text in files.values()))
    return [
        f"pass '{n}' runs in no lit test (no RUN line's -p names it)" for n in names if n not in run
    ]


def _names_word(text: str, word: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text) is not None


def unnamed_rules(rules: Mapping[str, Sequence[str]], files: Mapping[Path, str]) -> list[str]:
    """The rules (pass name -> its rule names) that no lit file running their
    pass names."""
    missing = []
    for pass_name, rule_names in rules.items():
        texts = [text for text in files.values() if pass_name in passes_run(text)]
        missing += [
            f"rule '{rule}' of pass '{pass_name}' is named in no lit test that runs the pass"
            for rule in rule_names
            if not any(_names_word(text, rule) for text in texts)
        ]
    return missing


def named_rewrites(source: str) -> list[tuple[int, str]]:
    """``(line, name)`` of each ``rewrite(..., name="...")`` call in ``source``."""
    found = []
    with warnings.catch_warnings():  # a bad escape in a docstring is not ours to report
        warnings.simplefilter("ignore")
        tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "rewrite":
            for kw in node.keywords:
                if kw.arg == "name" and isinstance(kw.value, ast.Constant):
                    found.append((node.lineno, kw.value.value))
    return found


def stray_rules(sources: Mapping[str, str], registered: set[str]) -> list[str]:
    """The rules written in ``sources`` (module -> text) that no registered
    pass keeps in its ``RULES``."""
    return [
        f"{module} (line {line}): rule '{name}' is in no registered pass's RULES"
        for module, text in sources.items()
        for line, name in named_rewrites(text)
        if name not in registered
    ]


def registered_rules() -> dict[str, list[str]]:
    """Registered pass name -> the names of its rules (passes with ``RULES``)."""
    rules = {}
    for name, factory in PASSES.items():
        pass_rules = getattr(factory(), "RULES", ())
        if pass_rules:
            rules[name] = [rule.name for rule in pass_rules]
    return rules


@pytest.fixture(scope="module")
def files() -> dict[Path, str]:
    return lit_files(LIT)


def test_every_registered_pass_runs_in_a_lit_test(files: dict[Path, str]) -> None:
    missing = untested_passes(list(PASSES), files)
    assert not missing, "\n".join(missing)


def test_every_rule_is_named_in_a_lit_test_of_its_pass(files: dict[Path, str]) -> None:
    rules = registered_rules()
    assert {"relay-simplify-expr", "relay-fold-scale-axis"} <= set(rules)
    missing = unnamed_rules(rules, files)
    assert not missing, "\n".join(missing)


def test_every_written_rule_belongs_to_a_registered_pass() -> None:
    paths = sorted((ROOT / "xtvm").rglob("*.py"))
    sources = {str(p.relative_to(ROOT)): p.read_text() for p in paths}
    registered = {rule for names in registered_rules().values() for rule in names}
    assert "add-zero" in registered
    stray = stray_rules(sources, registered)
    assert not stray, "\n".join(stray)


def test_every_registered_rule_says_what_it_does() -> None:
    for name, factory in PASSES.items():
        for rule in getattr(factory(), "RULES", ()):
            assert rule.doc, f"rule '{rule.name}' of pass '{name}' has no doc="


# --- the checkers on a known-bad example ---------------------------------------------


def test_pipelines_are_read_with_options_and_quotes() -> None:
    line = "// RUN: xtvm-opt %s -p 'a{x=1 y=2},b' | xtvm-opt -p c | filecheck %s"
    assert pipeline_passes(line) == {"a", "b", "c"}
    assert pipeline_passes('// RUN: xtvm-opt %s -p "d" --split-input-file') == {"d"}


def test_the_checkers_catch_a_bad_example(tmp_path: Path) -> None:
    files = {
        tmp_path / "a.mlir": "// RUN: xtvm-opt %s -p 'pass-a{n=1}' | filecheck %s\n"
        "// rule-one: shown here; rule-two-and-more is another rule\n",
        tmp_path / "b.mlir": "// RUN: xtvm-opt %s -p pass-c | filecheck %s\n// rule-two\n",
    }
    assert untested_passes(["pass-a", "pass-b", "pass-c"], files) == [
        "pass 'pass-b' runs in no lit test (no RUN line's -p names it)"
    ]
    # rule-two is only named in a file that does not run pass-a
    assert unnamed_rules({"pass-a": ["rule-one", "rule-two"]}, files) == [
        "rule 'rule-two' of pass 'pass-a' is named in no lit test that runs the pass"
    ]
    source = (
        'R = [\n    rewrite(Pat(A, "x"), to="x", name="kept"),\n'
        '    rewrite(P, to="x", name="lost"),\n]\n'
    )
    assert stray_rules({"m.py": source}, {"kept"}) == [
        "m.py (line 3): rule 'lost' is in no registered pass's RULES"
    ]
