"""``xtvm-run``: run a compiled model, print its outputs' shapes and latency.

```
xtvm-run model.so --input data=x.npy [--output out.npz] [--repeat 20] [--fill random]
```
Uses only the runtime (no compiler import), as a deployment would.
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
    parser.add_argument("--output", help="write the outputs to this .npz")
    parser.add_argument("--repeat", type=int, default=10, help="timed runs (median reported)")
    parser.add_argument(
        "--fill", choices=["none", "random", "zeros"], default="none",
        help="fill inputs not given with --input (default: they are an error)",
    )
    args = parser.parse_args(argv)
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


def run(args: argparse.Namespace) -> None:
    import xtvm.runtime as rt

    gmod = rt.load_module(args.library)["default"](rt.cpu(0))
    shapes, dtypes = gmod.get_input_info()
    given = {}
    for item in args.input:
        name, _, path = item.partition("=")
        if not path:
            raise ValueError(f"--input expects NAME=file.npy, got '{item}'")
        given[name] = np.load(path)
    rng = np.random.default_rng(0)
    for name in shapes:
        if name in given:
            gmod.set_input(name, given[name])
        elif args.fill == "random":
            gmod.set_input(name, rng.standard_normal(shapes[name]).astype(dtypes[name]))
        elif args.fill == "zeros":
            gmod.set_input(name, np.zeros(shapes[name], dtypes[name]))
        else:
            raise ValueError(
                f"input '{name}' {tuple(shapes[name])} {dtypes[name]} not given "
                f"(use --input {name}=file.npy or --fill random)"
            )
    unknown = set(given) - set(shapes)
    if unknown:
        raise ValueError(f"unknown inputs {sorted(unknown)}; the model takes {list(shapes)}")
    gmod.run()  # warm-up
    times = []
    for _ in range(max(args.repeat, 1)):
        start = time.perf_counter()
        gmod.run()
        times.append(time.perf_counter() - start)
    outputs = [gmod.get_output(i).numpy() for i in range(gmod.get_num_outputs())]
    for i, out in enumerate(outputs):
        print(f"output {i}: shape {tuple(out.shape)} {out.dtype}")
        print("  " + np.array2string(out, threshold=12, edgeitems=3, precision=5).replace("\n", "\n  "))
    print(f"latency: median {statistics.median(times) * 1e3:.3f} ms over {len(times)} runs")
    if args.output:
        np.savez(args.output, *outputs)
        print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
