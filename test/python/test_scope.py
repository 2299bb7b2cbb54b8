"""Scopes (xtvm.scope) and the two kinds built on them: ``PassContext`` and
``Target`` nest, survive exceptions, and belong to one thread each."""

import threading

import pytest

from xtvm.scope import Scope
from xtvm.target import Target
from xtvm.transform import PassContext

HASWELL = Target.from_string("llvm -mcpu=haswell -num-cores=1")
SKYLAKE = Target.from_string("llvm -mcpu=skylake-avx512")


def in_new_thread(fn):
    """What ``fn()`` returns when called in a fresh thread."""
    result = []
    thread = threading.Thread(target=lambda: result.append(fn()))
    thread.start()
    thread.join()
    return result[0]


def test_scopes_nest_and_unwind():
    scope: Scope[str] = Scope("test")
    assert scope.innermost() is None
    scope.enter("a")
    scope.enter("b")
    assert scope.innermost() == "b"
    scope.exit("b")
    assert scope.innermost() == "a"
    scope.exit("a")
    assert scope.innermost() is None


def test_closing_out_of_order_is_an_error():
    scope: Scope[str] = Scope("test")
    with pytest.raises(RuntimeError, match="none is open"):
        scope.exit("a")
    scope.enter("a")
    scope.enter("b")
    with pytest.raises(RuntimeError, match="test scope of 'a' closed out of order.*'b'"):
        scope.exit("a")


def test_pass_contexts_nest():
    default = PassContext.current()
    outer, inner = PassContext(opt_level=3), PassContext(opt_level=0)
    with outer:
        assert PassContext.current() is outer
        with inner:
            assert PassContext.current() is inner
        with outer:  # the same context entered twice
            assert PassContext.current() is outer
        assert PassContext.current() is outer
    assert PassContext.current() is default


def test_targets_nest():
    with HASWELL as t:
        assert t is HASWELL and Target.current() is HASWELL
        with SKYLAKE:
            assert Target.current() is SKYLAKE
            with HASWELL:
                assert Target.current() is HASWELL
            assert Target.current() is SKYLAKE
        assert Target.current() is HASWELL
    assert Target.current() == Target.current_host()


def test_an_exception_closes_the_scope():
    with pytest.raises(ValueError):
        with PassContext(opt_level=0), HASWELL:
            raise ValueError("inside")
    assert PassContext.current().opt_level == 2
    assert Target.current() == Target.current_host()


def test_a_new_thread_sees_the_defaults():
    with PassContext(opt_level=0), HASWELL:
        assert in_new_thread(lambda: PassContext.current().opt_level) == 2
        assert in_new_thread(Target.current) == Target.current_host()
        # and a thread's scopes are its own
        assert in_new_thread(lambda: _enter_and_read(SKYLAKE)) is SKYLAKE
        assert Target.current() is HASWELL


def _enter_and_read(target: Target) -> Target:
    with target:
        return Target.current()
