"""A heat-map picture of the hierarchy table (matplotlib, imported lazily)."""

from __future__ import annotations

from fsmnet.decide.hierarchy import Hierarchy


def plot_hierarchy(table: Hierarchy, path: str) -> None:
    """Green ✓ proved, red ✗ impossible (witness), grey ? unknown."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap

    code = {"impossible": 0, "unknown": 1, "possible": 2}
    grid = [[code[table.cell(t, a).verdict] for a in table.archs] for t in table.tasks]
    # A floor on the width, and a two-line title, so that a table of one or
    # two architectures does not clip the title (tight_layout shrinks axes,
    # never the title).
    width = max(0.9 * len(table.archs) + 2.5, 5.5)
    fig, ax = plt.subplots(figsize=(width, 0.42 * len(table.tasks) + 2.4))
    ax.imshow(grid, cmap=ListedColormap(["#d9534f", "#cccccc", "#5cb85c"]), vmin=0, vmax=2,
              aspect="auto")
    for i, t in enumerate(table.tasks):
        for j, a in enumerate(table.archs):
            c = table.cell(t, a)
            mark = {"possible": "✓", "impossible": "✗", "unknown": "?"}[c.verdict]
            ax.text(j, i, mark, ha="center", va="center", fontsize=11)
    ax.set_xticks(range(len(table.archs)), table.archs, rotation=40, ha="right")
    ax.set_yticks(range(len(table.tasks)), table.tasks)
    ax.set_title("fsmnet hierarchy\n✓ proved, ✗ impossible (witness), ? unknown", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
