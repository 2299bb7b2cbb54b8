"""``xtvm-run``: run a compiled model, print its outputs' shapes and latency.

```
xtvm-run model.so --input data=x.npy [--output out.npz] [--repeat 20] [--fill random]
```
Uses only the runtime (no compiler import), as a deployment would. The
``--output`` file holds one array per model output, named as the model
names it (``np.load("out.npz")["output"]``). An input file is a ``.npy``
array, or an ``.npz`` archive holding one array or one named like the input.

The model runs in a child process, so a crash inside generated code (a
signal) is an error message naming the signal, not a dead shell session.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence

import numpy as np


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="xtvm-run", description=__doc__.split("\n")[0])
    parser.add_argument("library", help="a shared library written by xtvm-compile")
    parser.add_argument("--input", action="append", default=[], help="NAME=file.npy")
    parser.add_argument(
        "--output", help="write the outputs to this .npz, each under the model's name for it"
    )
    parser.add_argument("--repeat", type=int, default=10, help="timed runs (median reported)")
    parser.add_argument(
        "--fill", choices=["none", "random", "zeros"], default="none",
        help="fill inputs not given with --input (default: they are an error)",
    )
    parser.add_argument("--in-process", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not args.in_process:
        sys.exit(run_isolated(list(sys.argv[1:] if argv is None else argv)))
    try:
        run(args)
    except (ValueError, OSError) as e:
        print(f"xtvm-run: error: {e}", file=sys.stderr)
        sys.exit(1)
    except Exception as e:
        from xtvm.runtime import XTVMError

        if isinstance(e, XTVMError):
            print(f"xtvm-run: error: {e}", file=sys.stderr)
            sys.exit(1)
        raise


def run_isolated(argv: list[str]) -> int:
    """Run ``xtvm-run`` in a child process; a signal becomes a message."""
    import signal
    import subprocess

    result = subprocess.run([sys.executable, "-m", "xtvm.tools.run", "--in-process", *argv])
    if result.returncode >= 0:
        return result.returncode
    try:
        name = signal.Signals(-result.returncode).name
    except ValueError:
        name = f"signal {-result.returncode}"
    print(
        f"xtvm-run: error: the model crashed inside its generated code ({name}); "
        "the library or its inputs are broken (load only libraries you trust)",
        file=sys.stderr,
    )
    return 1


def load_input(name: str, path: str) -> np.ndarray:
    """The array of ``--input NAME=path``: a ``.npy`` file, or an ``.npz``
    archive holding one array or one named ``NAME``."""
    try:
        loaded = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError) as err:
        raise ValueError(f"--input {name}={path}: not a .npy or .npz file ({type(err).__name__})") from None
    if not isinstance(loaded, np.lib.npyio.NpzFile):
        return loaded
    with loaded:
        if name in loaded.files:
            return loaded[name]
        if len(loaded.files) == 1:
            return loaded[loaded.files[0]]
        raise ValueError(
            f"--input {name}={path}: the .npz archive holds {len(loaded.files)} arrays "
            f"({', '.join(loaded.files)}) and none is named '{name}'"
        )


def run(args: argparse.Namespace) -> None:
    import xtvm.runtime as rt

    from xtvm.runtime.vm import VirtualMachine, has_executable

    lib = rt.load_module(args.library)
    if lib.graph_json is None and has_executable(lib):  # compiled with --executor vm
        gmod = VirtualMachine(lib, rt.cpu(0))
    else:
        gmod = lib["default"](rt.cpu(0))
    shapes, dtypes = gmod.get_input_info()
    paths = {}
    for item in args.input:
        name, _, path = item.partition("=")
        if not name or not path:
            raise ValueError(f"--input expects NAME=file.npy, got '{item}'")
        if name in paths:
            raise ValueError(f"--input {name} is given twice")
        paths[name] = path
    unknown = [name for name in paths if name not in shapes]
    if unknown:  # before any file is read, and even when --fill gives the rest
        raise ValueError(f"unknown inputs {unknown}; the model takes {list(shapes)}")
    given = {name: load_input(name, path) for name, path in paths.items()}
    rng = np.random.default_rng(0)
    for name in shapes:
        if name in given:
            gmod.set_input(name, given[name])
        elif any(d < 0 for d in shapes[name]) and args.fill != "none":
            dims = ", ".join("?" if d < 0 else str(d) for d in shapes[name])
            raise ValueError(f"input '{name}' has a dynamic shape ({dims}): give it with --input {name}=file.npy")
        elif args.fill == "random":
            gmod.set_input(name, rng.standard_normal(shapes[name]).astype(dtypes[name]))
        elif args.fill == "zeros":
            gmod.set_input(name, np.zeros(shapes[name], dtypes[name]))
        else:
            raise ValueError(
                f"input '{name}' {tuple(shapes[name])} {dtypes[name]} not given "
                f"(use --input {name}=file.npy or --fill random)"
            )
    gmod.run()  # warm-up
    times = []
    for _ in range(max(args.repeat, 1)):
        start = time.perf_counter()
        gmod.run()
        times.append(time.perf_counter() - start)
    outputs = {name: gmod.get_output(i).numpy() for i, name in enumerate(gmod.output_names)}
    for i, (name, out) in enumerate(outputs.items()):
        print(f"output {i} '{name}': shape {tuple(out.shape)} {out.dtype}")
        print("  " + np.array2string(out, threshold=12, edgeitems=3, precision=5).replace("\n", "\n  "))
    print(f"latency: median {statistics.median(times) * 1e3:.3f} ms over {len(times)} runs")
    if args.output:
        np.savez(args.output, **outputs)  # one array per output, under the model's name for it
        print(f"wrote {args.output} ({', '.join(outputs)})")


if __name__ == "__main__":
    main()
