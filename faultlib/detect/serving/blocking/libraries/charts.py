"""Charts and graphs rendered to files: matplotlib's ``savefig`` (seaborn's plots draw on matplotlib) and graphviz.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`).
``savefig`` -- ``matplotlib.pyplot.savefig`` or ``Figure.savefig`` -- draws the whole figure with the Agg renderer
and encodes and writes the image file in the calling thread; seaborn's axes-level functions (``lineplot``,
``barplot``...) return the matplotlib ``Axes`` they drew on, whose ``.figure`` is that ``Figure`` (the attribute is
typed in :data:`faultlib.detect.serving.blocking.vocab.ATTRIBUTE_TYPES`). graphviz's ``render``, ``pipe``, ``view``
and ``unflatten`` run the Graphviz layout program (``dot`` by default) as a child process and wait for it. Building a
figure or a graph (``plot``, ``node``, ``edge``) stays in memory and is left out. Each entry names the documentation.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

F = "blocking_file_io"
P = "blocking_subprocess"

SAVEFIG = ("https://matplotlib.org/stable/api/_as_gen/matplotlib.figure.Figure.savefig.html (renders the figure "
           "and writes the image file; pyplot.savefig saves the current figure)")
SEABORN = ("https://seaborn.pydata.org/tutorial/function_overview.html#axes-level-functions-make-self-contained-plots"
           " (axes-level functions return the matplotlib Axes they plot on)")
GRAPHVIZ = ("https://graphviz.readthedocs.io/en/stable/api.html#graphviz.Graph.render (render, pipe, view and "
            "unflatten run the Graphviz layout command as a subprocess)")

_FIGURES = ("matplotlib.figure.Figure",)
_AXES = "matplotlib.axes.Axes"
_AXES_LEVEL = ("lineplot", "scatterplot", "barplot", "countplot", "histplot", "kdeplot", "boxplot", "violinplot",
               "heatmap", "pointplot", "stripplot", "swarmplot", "ecdfplot", "regplot")
_GRAPHS = ("graphviz.Graph", "graphviz.Digraph", "graphviz.Source")

CHARTS = Vocabulary(
    calls={"matplotlib.pyplot.savefig": (F, SAVEFIG)},
    families=(
        Family(_FIGURES, {"savefig": F}, SAVEFIG),
        Family(_GRAPHS, {m: P for m in ("render", "pipe", "view", "unflatten")}, GRAPHVIZ),
    ),
    returns={**{f"seaborn.{name}": _AXES for name in _AXES_LEVEL},
             "matplotlib.pyplot.figure": _FIGURES[0], "matplotlib.pyplot.gcf": _FIGURES[0],
             "matplotlib.pyplot.gca": _AXES},
)
