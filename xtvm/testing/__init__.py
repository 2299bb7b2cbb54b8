"""Testing tools that ship with xtvm: the fuzzers of ``xtvm.testing.fuzz``.

``python -m xtvm.testing.fuzz ir|onnx|runtime --minutes N --seed S`` runs
one fuzzer and writes reduced reproducers of what it finds (see
``xtvm/testing/fuzz/__init__.py``).
"""
