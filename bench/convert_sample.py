"""Convert a fixed sample of MaskBench with structgen, for counting instructions.

Wall times on a shared 2-core VM vary by several percent between runs; instruction counts under
valgrind repeat to within about 0.3 %, which is what comparing two versions of the converter
needs. Count a run that converts and one that only loads the sample, and subtract:

    PYTHONHASHSEED=0 valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \\
        python -m bench.convert_sample --every 1            # add --load-only for the baseline

from the root of the checkout (``I refs`` in valgrind's summary). A version in another checkout:
``--source PATH`` (:func:`bench.harness.use_structgen`). The whole corpus (``--every 1``) takes a quarter of an hour; a sample is quicker but misses most of the
few hundred schemas where the time is.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bench.harness import use_structgen
from tests.support.corpora import maskbench_cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=int, default=5, help="keep every N-th schema")
    parser.add_argument("--load-only", action="store_true", help="load the sample, convert nothing")
    parser.add_argument("--source", type=Path, default=None,
                        help="import structgen from this checkout instead")
    args = parser.parse_args()
    structgen = use_structgen(args.source)  # this checkout's, unless --source names another
    StructgenError, json_schema_to_gbnf = structgen.StructgenError, structgen.json_schema_to_gbnf

    cases = list(maskbench_cases(every=args.every))
    if args.load_only:
        return
    for case in cases:
        try:
            json_schema_to_gbnf(case.schema)
        except StructgenError:
            pass


if __name__ == "__main__":
    main()
