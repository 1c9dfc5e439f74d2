"""Draw the benchmark figures of docs/benchmarks.md from the committed results in bench/results/.

    python -m bench.plots            # or `make plots`; writes docs/img/*.svg

Each results file names the command that measured it and when; an engine added to a results
file (another converter, another model) appears in its figure without a code change. The SVGs
carry no date and a fixed hash salt, so unchanged data redraws to the same bytes.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend is chosen first)

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
COLOURS = {"structgen": "#3b6fb6", "llama-cpp-python": "#d08a3c", "xgrammar": "#5a9e5a", "llguidance": "#9c5fb5",
           "llama-server": "#8a8a8a"}
SAVE = {"format": "svg", "metadata": {"Date": None}, "bbox_inches": "tight"}


def _load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((RESULTS / f"{name}.json").read_text())
    return data


def _grouped_bars(ax: Any, groups: list[str], series: dict[str, list[float]]) -> None:
    width = 0.8 / len(series)
    for i, (engine, values) in enumerate(series.items()):
        xs = [g + (i - (len(series) - 1) / 2) * width for g in range(len(groups))]
        bars = ax.bar(xs, values, width, label=engine, color=COLOURS.get(engine))
        ax.bar_label(bars, fmt="%g", fontsize=7, padding=1)
    ax.set_xticks(range(len(groups)), groups, fontsize=8)


def _legend_below(fig: Any, ax: Any, columns: int) -> None:
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=columns, fontsize=8, frameon=False,
               bbox_to_anchor=(0.5, -0.08))


def conformance(out: Path) -> None:
    data = _load("conformance")
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), sharey=True)
    names = [f"{c['name']}\n({c['schemas']:,} schemas)" for c in data["corpora"]]
    engines = list(data["corpora"][0]["engines"])
    for ax, metric, title in zip(axes, ("schemas_pass", "instances_right"), ("schemas passed", "instances judged right")):
        _grouped_bars(ax, names, {e: [c["engines"][e][metric] for c in data["corpora"]] for e in engines})
        ax.set_title(title, fontsize=10)
        ax.set_ylim(0, 105)
    axes[0].set_ylabel("%", fontsize=8)
    _legend_below(fig, axes[0], len(engines))
    fig.suptitle("JSON Schema → grammar conformance (judged by llama.cpp's sampler)", fontsize=11)
    fig.savefig(out / "conformance.svg", **SAVE)
    plt.close(fig)


def generation(out: Path) -> None:
    data = _load("generation")
    fig, ax = plt.subplots(figsize=(6, 3.2))
    models = [m["name"] for m in data["models"]]
    series = {
        "vs llama-cpp-python's grammar (a)/(b)": [max(m["a_over_b"]) for m in data["models"]],
        "vs unconstrained, same tokens (a)/(c)": [max(m["a_over_c"]) for m in data["models"]],
    }
    _grouped_bars(ax, models, series)
    ax.axhline(1.0, color="grey", linewidth=0.8, linestyle="--")
    ax.set_ylim(0, 1.15)
    ax.set_ylabel("structgen's time / other (lower is faster)", fontsize=8)
    _legend_below(fig, ax, 1)
    ax.set_title("Generation time, nine extraction tasks (worst of the runs)", fontsize=10)
    fig.savefig(out / "generation.svg", **SAVE)
    plt.close(fig)


def bfcl(out: Path) -> None:
    data = _load("bfcl-test-summary")
    engines = data["columns"][1:]
    fig, axes = plt.subplots(1, len(data["models"]), figsize=(13, 4.5), sharey=True)
    for ax, model in zip(axes, data["models"]):
        categories = list(model["categories"])
        rows = [model["categories"][c] for c in categories]
        total = sum(r[0] for r in rows)
        width = 0.8 / len(engines)
        for i, engine in enumerate(engines):
            share = [100 * r[i + 1] / r[0] for r in rows]
            ys = [y + (i - (len(engines) - 1) / 2) * width for y in range(len(categories))]
            overall = 100 * sum(r[i + 1] for r in rows) / total
            ax.barh(ys, share, width, color=COLOURS.get(engine), label=f"{engine}: {overall:.0f} % overall")
        ax.set_yticks(range(len(categories)), categories, fontsize=8)
        ax.set_xlim(0, 100)
        ax.set_xlabel("% of cases right", fontsize=8)
        ax.set_title(f"{model['name']} ({total} cases)", fontsize=10)
        ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=1, frameon=False)
    axes[0].invert_yaxis()  # the first category on top (the axes share y: invert once)
    fig.suptitle("Function calling on BFCL v4 single-turn categories", fontsize=11)
    fig.savefig(out / "bfcl.svg", **SAVE)
    plt.close(fig)


FIGURES = {"conformance": conformance, "generation": generation, "bfcl": bfcl}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    plt.rcParams["svg.hashsalt"] = "structgen"
    for name, draw in FIGURES.items():
        draw(args.out)
        print(f"wrote {args.out / name}.svg")


if __name__ == "__main__":
    main()
