"""`xtvm.target.Target`: TVM-style target strings and what they imply."""

import pytest

from xtvm.target import Target


def test_parse_full_string() -> None:
    t = Target.from_string("llvm -mcpu=skylake-avx512 -mattr=+fma,-avx512bw -num-cores=4")
    assert t == Target("llvm", "skylake-avx512", ("+fma", "-avx512bw"), 4)
    assert t.vector_width == 512
    assert t.cores == 4
    assert str(t) == "llvm -mcpu=skylake-avx512 -mattr=+fma,-avx512bw -num-cores=4"
    assert Target.from_string(str(t)) == t


def test_named_cpus_and_mattr_set_vector_width() -> None:
    assert Target(mcpu="haswell").vector_width == 256
    assert Target(mcpu="x86-64").vector_width == 128
    assert Target(mcpu="x86-64", mattr=("+avx2",)).vector_width == 256


def test_host_target() -> None:
    host = Target.of("llvm -mcpu=native")
    assert host.is_host_cpu and host.cpu_name == Target.current_host().mcpu
    assert host.vector_width >= 128
    assert Target.of(None) == Target()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("cuda", "unsupported target kind 'cuda'"),
        ("llvm -mcpu", "cannot read '-mcpu'"),
        ("llvm -opt=3", "cannot read '-opt=3'"),
        ("llvm -num-cores=two", "-num-cores must be an integer"),
        ("llvm -mattr=avx2", "start with '\\+' or '-'"),
        ("", "empty target string"),
    ],
)
def test_bad_strings(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Target.from_string(text)


def test_an_invalid_cpu_or_feature_is_an_error_not_an_exit() -> None:
    """LLVM ends the process on some invalid targets (`-mcpu=nonsense`): xtvm
    asks it in a child process first and raises a CodegenError."""
    import subprocess
    import sys

    script = (
        "import xtvm\nfrom xtvm.te import placeholder\n"
        "from xtvm.codegen import CodegenError, check_target\n"
        "for t in ['llvm -mcpu=nonsense', 'llvm -mattr=+bogus']:\n"
        "    try:\n        check_target(t)\n    except CodegenError as e:\n        print(e)\n"
        "print(check_target('llvm -mcpu=haswell'))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "'nonsense' is not a recognized processor" in lines[0]
    assert "'+bogus' is not a recognized feature" in lines[1]
    assert lines[2] == "llvm -mcpu=haswell"
