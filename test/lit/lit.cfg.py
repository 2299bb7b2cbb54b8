"""lit configuration: every ``.mlir`` file under test/lit is a golden IR test."""

import os
import sys

import lit.formats

config.name = "xtvm"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["inputs"]
# xtvm-opt and filecheck live next to the Python running lit (the venv's bin).
bin_dir = os.path.dirname(sys.executable)
config.environment["PATH"] = os.pathsep.join([bin_dir, os.environ.get("PATH", "")])
