"""The dependency rules of DESIGN.md ("what may import what"), checked from
the source's imports so they stay true.

Every ``xtvm/**/*.py`` is parsed with :mod:`ast`; a module's imports are
all its ``import``/``from ... import`` statements and ``import_module("...")``
calls, those inside functions included (``from X import Y`` imports ``X``
and, when it is a module of the tree, ``X.Y``). Rules about what a module *loads* (dialects load no NumPy,
references load no IR) follow its import-time imports transitively, with
the parent packages Python imports first; the others read each module's own
imports. Each failure names the module, the line and the import.

The checkers run on a small bad tree too (``test_each_rule_catches_a_bad_tree``),
so a rule that can no longer fail is noticed.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
"""The repository (holding the ``xtvm`` package)."""


@dataclass(frozen=True)
class Import:
    """One import in ``module``'s source: of ``target`` at ``line``;
    ``eager`` when it runs as the module is imported (not inside a function,
    nor under ``if TYPE_CHECKING:``)."""

    module: str
    target: str
    line: int
    eager: bool

    def __str__(self) -> str:
        return f"{self.module} (line {self.line}) imports {self.target}"


def module_name(path: Path, root: Path) -> str:
    """``xtvm/a/b.py`` -> ``xtvm.a.b``; ``xtvm/a/__init__.py`` -> ``xtvm.a``."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_module_call(node: ast.AST) -> str | None:
    """The module of an ``import_module("literal")`` call, else None."""
    if (
        isinstance(node, ast.Call)
        and getattr(node.func, "id", getattr(node.func, "attr", None)) == "import_module"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return node.args[0].value
    return None


def _import_nodes(tree: ast.AST, eager: bool = True) -> Iterator[tuple[ast.AST, bool]]:
    """Every import statement and ``import_module("...")`` call under
    ``tree``, with whether it runs at import time."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.Import | ast.ImportFrom) or _import_module_call(node):
            yield node, eager
        inner = eager and not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        if isinstance(node, ast.If) and _is_type_checking(node):
            yield from (i for n in node.body for i in _import_nodes(ast.Module([n], []), False))
            yield from (i for n in node.orelse for i in _import_nodes(ast.Module([n], []), eager))
            continue
        yield from _import_nodes(node, inner)


def read_imports(root: Path) -> dict[str, list[Import]]:
    """Module name -> its imports, for every module of the ``xtvm`` package under ``root``."""
    paths = {module_name(p, root): p for p in sorted((root / "xtvm").rglob("*.py"))}
    imports: dict[str, list[Import]] = {}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found = imports[name] = []
        with warnings.catch_warnings():  # a bad escape in a docstring is not ours to report
            warnings.simplefilter("ignore")
            tree = ast.parse(path.read_text(), str(path))
        for node, eager in _import_nodes(tree):
            if (called := _import_module_call(node)) is not None:
                targets = [called]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                    base = f"{anchor}.{base}" if base else anchor
                submodules = [f"{base}.{alias.name}" for alias in node.names]
                targets = [base] + [m for m in submodules if m in paths]
            found += [Import(name, t, node.lineno, eager) for t in targets]
    return imports


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def _of_xtvm(name: str) -> bool:
    """A module of xtvm (the package itself aside: it imports its attributes lazily)."""
    return name.startswith("xtvm.")


def _parents(name: str) -> list[str]:
    """The packages Python imports before ``name`` (``a``, ``a.b`` for ``a.b.c``)."""
    parts = name.split(".")
    return [".".join(parts[:k]) for k in range(1, len(parts))]


def loaded(imports: dict[str, list[Import]], module: str) -> dict[str, list[Import]]:
    """Every module importing ``module`` loads (its eager imports, transitively,
    with parent packages), each with the chain of imports that loads it."""
    chains: dict[str, list[Import]] = {m: [] for m in [*_parents(module), module]}
    todo = list(chains)
    while todo:
        current = todo.pop()
        for imp in imports.get(current, []):
            if not imp.eager:
                continue
            for target in [*_parents(imp.target), imp.target]:
                if target not in chains:
                    chains[target] = [*chains[current], imp]
                    todo.append(target)
    return chains


def _via(chain: list[Import]) -> str:
    return " -> ".join(str(i) for i in chain)


# --- the rules ------------------------------------------------------------------
# Each takes every module's imports and returns the violations, one line each.

Rule = Callable[[dict[str, list[Import]]], list[str]]


def runtime_is_self_contained(imports: dict[str, list[Import]]) -> list[str]:
    """xtvm/runtime imports nothing else of xtvm (an artifact runs without the compiler)."""
    return [
        f"{imp}: xtvm/runtime may import only xtvm.runtime"
        for module, found in imports.items()
        if _within(module, "xtvm.runtime")
        for imp in found
        if _of_xtvm(imp.target) and not _within(imp.target, "xtvm.runtime")
    ]


def dialects_are_definitions(imports: dict[str, list[Import]]) -> list[str]:
    """xtvm/dialects imports neither passes, lowerings, the runtime nor references."""
    banned = ("xtvm.passes", "xtvm.lowering", "xtvm.runtime", "xtvm.reference")
    return [
        f"{imp}: dialects hold definitions only (no {', '.join(banned)})"
        for module, found in imports.items()
        if _within(module, "xtvm.dialects")
        for imp in found
        if any(_within(imp.target, b) for b in banned)
    ]


def dialects_load_no_numpy(imports: dict[str, list[Import]]) -> list[str]:
    """Importing a dialect loads no NumPy (xtvm-opt starts fast)."""
    return [
        f"{module} loads numpy: {_via(chain)}"
        for module in imports
        if _within(module, "xtvm.dialects")
        for target, chain in loaded(imports, module).items()
        if _within(target, "numpy")
    ]


def references_load_no_ir(imports: dict[str, list[Import]]) -> list[str]:
    """xtvm/reference is pure NumPy: importing it loads neither xDSL nor a dialect."""
    return [
        f"{module} loads IR ({target}): {_via(chain)}"
        for module in imports
        if _within(module, "xtvm.reference")
        for target, chain in loaded(imports, module).items()
        if _within(target, "xdsl") or _within(target, "xtvm.dialects")
    ]


def only_tools_import_tools(imports: dict[str, list[Import]]) -> list[str]:
    """xtvm/tools sits on top: no other module (passes, lowerings, ...) imports it."""
    return [
        f"{imp}: only xtvm/tools may import xtvm.tools"
        for module, found in imports.items()
        if not _within(module, "xtvm.tools")
        for imp in found
        if _within(imp.target, "xtvm.tools")
    ]


def topi_takes_target_facts_from_target(imports: dict[str, list[Import]]) -> list[str]:
    """topi reads target facts (vector width, cores) from xtvm.target, never
    from a lowering module."""
    return [
        f"{imp}: topi takes target facts from xtvm.target, not from xtvm.lowering"
        for module, found in imports.items()
        if _within(module, "xtvm.topi")
        for imp in found
        if _within(imp.target, "xtvm.lowering")
    ]


def alter_op_layout_imports_only_the_x86_config(imports: dict[str, list[Import]]) -> list[str]:
    """relay-alter-op-layout needs the blocking of the x86 kernels, not the kernels."""
    return [
        f"{imp}: relay-alter-op-layout may import only xtvm.topi.x86.config of topi"
        for imp in imports.get("xtvm.passes.relay.alter_op_layout", [])
        if _within(imp.target, "xtvm.topi") and imp.target != "xtvm.topi.x86.config"
    ]


REGISTRIES = ("xtvm.dialects.registry", "xtvm.passes.registry")


def registries_are_lazy(imports: dict[str, list[Import]]) -> list[str]:
    """The dialect and pass registries map names to factories; importing one
    imports nothing of xtvm (each factory imports its dialect or pass)."""
    return [
        f"{imp}: a registry imports what it names on demand only"
        for registry in REGISTRIES
        for imp in imports.get(registry, [])
        if imp.eager and _of_xtvm(imp.target)
    ]


RPC_SERVER_SIDE = ("xtvm.rpc.server", "xtvm.rpc.session", "xtvm.rpc.tracker")


def rpc_server_runs_on_the_runtime(imports: dict[str, list[Import]]) -> list[str]:
    """The RPC server (its session process) and tracker load only the runtime and
    xtvm.rpc: a device runs artifacts without the compiler, as TVM's deployable runtime."""
    return [
        f"{module} loads {target}: {_via(chain)}"
        for module in RPC_SERVER_SIDE
        if module in imports
        for target, chain in loaded(imports, module).items()
        if _of_xtvm(target) and not (_within(target, "xtvm.runtime") or _within(target, "xtvm.rpc"))
    ]


RULES: list[Rule] = [
    runtime_is_self_contained,
    dialects_are_definitions,
    dialects_load_no_numpy,
    references_load_no_ir,
    only_tools_import_tools,
    topi_takes_target_facts_from_target,
    alter_op_layout_imports_only_the_x86_config,
    registries_are_lazy,
    rpc_server_runs_on_the_runtime,
]


@pytest.fixture(scope="module")
def xtvm_imports() -> dict[str, list[Import]]:
    return read_imports(ROOT)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.__name__)
def test_the_source_keeps_the_rule(rule: Rule, xtvm_imports: dict[str, list[Import]]) -> None:
    violations = rule(xtvm_imports)
    assert not violations, f"{rule.__doc__}\n" + "\n".join(violations)


def test_the_reader_sees_the_tree(xtvm_imports: dict[str, list[Import]]) -> None:
    expected = {"xtvm.runtime", "xtvm.dialects.relay", "xtvm.tools.opt", *REGISTRIES, *RPC_SERVER_SIDE}
    assert expected <= set(xtvm_imports)
    alter = {i.target for i in xtvm_imports["xtvm.passes.relay.alter_op_layout"]}
    assert {"xtvm.topi.x86.config", "xtvm.dialects.relay", "xdsl.passes"} <= alter


# --- the checkers on a known-bad tree -----------------------------------------------

BAD_TREE = {
    "xtvm/__init__.py": "",
    "xtvm/helpers.py": "import numpy as np\nimport xdsl.ir\n",
    "xtvm/runtime/__init__.py": "from xtvm.runtime import ok\n",
    "xtvm/runtime/ok.py": "",
    "xtvm/runtime/bad.py": "def load():\n    from xtvm.passes import registry\n",
    "xtvm/dialects/__init__.py": "",
    "xtvm/dialects/d.py": "from ..lowering import tir_to_llvm\nfrom xtvm import helpers\n",
    "xtvm/reference/__init__.py": "",
    "xtvm/reference/r.py": "from xtvm.helpers import np\n",
    "xtvm/lowering/__init__.py": "",
    "xtvm/lowering/tir_to_llvm.py": "MAX_LANES = 64\n",
    "xtvm/passes/__init__.py": "",
    "xtvm/passes/registry.py": "from xtvm.passes.relay import alter_op_layout\n",
    "xtvm/passes/relay/__init__.py": "",
    "xtvm/passes/relay/alter_op_layout.py": (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from xtvm.topi.x86 import conv2d\n"
        "from xtvm.topi.x86.config import lanes\n"
        "def apply():\n    import xtvm.tools.opt\n"
    ),
    "xtvm/lowering/tools_user.py": "import importlib\nimportlib.import_module('xtvm.tools.run')\n",
    "xtvm/topi/__init__.py": "",
    "xtvm/topi/x86/__init__.py": "",
    "xtvm/topi/x86/config.py": "",
    "xtvm/topi/x86/conv2d.py": "from xtvm.lowering.tir_to_llvm import MAX_LANES\n",
    "xtvm/tools/__init__.py": "",
    "xtvm/tools/opt.py": "from xtvm.passes import registry\n",
    "xtvm/rpc/__init__.py": "",
    "xtvm/rpc/server.py": "from xtvm.runtime import ok\nfrom xtvm.rpc import session\n",
    "xtvm/rpc/session.py": "def run():\n    pass\nfrom xtvm.helpers import np\n",
}
"""One breach of each rule, each in its own way (inside a function, relative,
transitive, under ``TYPE_CHECKING``, by ``import_module``)."""

EXPECTED = {
    runtime_is_self_contained: "xtvm.runtime.bad (line 2) imports xtvm.passes",
    dialects_are_definitions: "xtvm.dialects.d (line 1) imports xtvm.lowering",
    dialects_load_no_numpy: "xtvm.dialects.d loads numpy: xtvm.dialects.d (line 2) imports "
    "xtvm.helpers -> xtvm.helpers (line 1) imports numpy",
    references_load_no_ir: "xtvm.reference.r loads IR (xdsl.ir): xtvm.reference.r (line 1) "
    "imports xtvm.helpers -> xtvm.helpers (line 2) imports xdsl.ir",
    only_tools_import_tools: "xtvm.passes.relay.alter_op_layout (line 6) imports xtvm.tools.opt",
    topi_takes_target_facts_from_target: "xtvm.topi.x86.conv2d (line 1) imports "
    "xtvm.lowering.tir_to_llvm",
    alter_op_layout_imports_only_the_x86_config: "xtvm.passes.relay.alter_op_layout (line 3) "
    "imports xtvm.topi.x86.conv2d",
    registries_are_lazy: "xtvm.passes.registry (line 1) imports xtvm.passes.relay",
    rpc_server_runs_on_the_runtime: "xtvm.rpc.server loads xtvm.helpers: xtvm.rpc.server (line 2) "
    "imports xtvm.rpc.session -> xtvm.rpc.session (line 3) imports xtvm.helpers",
}


def test_every_rule_has_a_bad_example() -> None:
    assert set(EXPECTED) == set(RULES)


def test_import_module_of_a_literal_is_an_import(tmp_path: Path) -> None:
    (tmp_path / "xtvm").mkdir()
    (tmp_path / "xtvm" / "lowering.py").write_text(BAD_TREE["xtvm/lowering/tools_user.py"])
    found = read_imports(tmp_path)["xtvm.lowering"]
    assert Import("xtvm.lowering", "xtvm.tools.run", 2, eager=True) in found


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.__name__)
def test_each_rule_catches_a_bad_tree(rule: Rule, tmp_path: Path) -> None:
    for name, text in BAD_TREE.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    violations = rule(read_imports(tmp_path))
    assert any(v.startswith(EXPECTED[rule]) for v in violations), violations
