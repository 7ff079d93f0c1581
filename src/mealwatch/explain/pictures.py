"""Static pictures of word attention with matplotlib (Agg, no display): one head as a labelled
heatmap, or every layer × head as a grid of small heatmaps; PNG or SVG by the file's suffix.
Words in Devanagari and other Indic scripts are drawn with an installed font that has them
(``fonts.families_for``); where none is installed the picture says so instead of failing."""

from __future__ import annotations

import warnings
from pathlib import Path

from matplotlib.figure import Figure

from ..atomic import write_file_atomically
from .focus import label_of
from .fonts import families_for
from .terminal import view_name
from .word_attention import WordAttention, check_layer_head

FORMATS = (".png", ".svg")
CMAP = "Blues"


def check_picture_path(path: str | Path) -> Path:
    """The path, if its suffix is one we can write; ValueError otherwise."""
    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise ValueError(f"{path}: a picture must end in {' or '.join(FORMATS)}")
    if not path.parent.is_dir():
        raise ValueError(f"{path}: the folder {path.parent} does not exist")
    return path


def save_figure(fig: Figure, path: str | Path) -> Path:
    """Write ``fig`` as PNG or SVG, chosen by the suffix of ``path``."""
    path = check_picture_path(path)
    with warnings.catch_warnings():  # a missing glyph is named once in the picture's title, not per glyph
        warnings.filterwarnings("ignore", message="Glyph .* missing from", category=UserWarning)
        write_file_atomically(path, lambda temp: _savefig(fig, temp, path.suffix.lower()))
    return path


def _savefig(fig: Figure, path: Path, suffix: str) -> None:
    meta = {"Date": None} if suffix == ".svg" else None
    fig.savefig(path, format=suffix.lstrip("."), dpi=120, bbox_inches="tight", metadata=meta)


def head_figure(wa: WordAttention, layer: int | None = None, head: int | None = None) -> Figure:
    """A heatmap of one head (or a layer's mean, or the overall mean): rows attend, columns are attended to."""
    check_layer_head(wa.layers, wa.heads, layer, head)
    matrix = wa.view(layer, head).detach().float().numpy()  # (W, W)
    W = len(wa.words)
    labels = [label_of(wa.words, i) for i in range(W)]
    side = min(max(3.0, 0.32 * W + 1.5), 40.0)
    font = 9 if W <= 40 else max(3, int(9 * 40 / W))
    fig = Figure(figsize=(side + 1.0, side))
    ax = fig.add_subplot()
    image = ax.imshow(matrix, cmap=CMAP, vmin=0.0, vmax=max(float(matrix.max()), 1e-6))
    fonts = families_for(labels)
    ax.set_xticks(range(W), labels, rotation=90, fontsize=font, fontfamily=list(fonts.families))
    ax.set_yticks(range(W), labels, fontsize=font, fontfamily=list(fonts.families))
    ax.set_xlabel("attended word (key)")
    ax.set_ylabel("attending word (query)")
    notes = ["[CLS]/[SEP] left out, rows rescaled"] * wa.renormalised + [fonts.note] * bool(fonts.note)
    ax.set_title("\n".join([view_name(wa, layer, head), *notes]))
    if W <= 16:
        for i in range(W):
            for j in range(W):
                v = matrix[i, j]
                colour = "white" if v > 0.6 * matrix.max() else "black"
                ax.text(j, i, f"{v:.2f}".lstrip("0"), ha="center", va="center", fontsize=6.5, color=colour)
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="attention weight")
    return fig


def grid_figure(wa: WordAttention) -> Figure:
    """Every layer (rows) × head (columns) as a small heatmap on a shared colour scale, the words along the first
    column (the attending words) and the last row (the attended ones)."""
    L, H = wa.layers, wa.heads
    W = len(wa.words)
    labels = [label_of(wa.words, i) for i in range(W)]
    fonts = families_for(labels)
    size = 6 if W <= 20 else max(2.5, 6 * 20 / W)
    room = min(2.2, 0.25 + 0.055 * size * max((len(w) for w in labels), default=1))  # inches for the words
    cell = 1.0
    fig = Figure(figsize=(cell * H + 0.6 + room, cell * L + 0.8 + room))
    axes = fig.subplots(L, H, squeeze=False, gridspec_kw={"wspace": 0.08, "hspace": 0.08})
    fig.subplots_adjust(left=(room + 0.3) / fig.get_figwidth(), bottom=(room + 0.2) / fig.get_figheight())
    data = wa.attention.detach().float().numpy()  # (L, H, W, W)
    for l in range(L):
        for h in range(H):
            ax = axes[l][h]
            ax.imshow(data[l, h], cmap=CMAP, vmin=0.0, vmax=1.0, interpolation="nearest")
            ax.set_xticks([])
            ax.set_yticks([])
            if l == 0:
                ax.set_title(f"head {h}", fontsize=7)
            if h == 0:
                ax.set_yticks(range(W), labels, fontsize=size, fontfamily=list(fonts.families))
                ax.set_ylabel(f"layer {l}", fontsize=7)
            if l == L - 1:
                ax.set_xticks(range(W), labels, rotation=90, fontsize=size, fontfamily=list(fonts.families))
    notes = ["[CLS]/[SEP] left out, rows rescaled"] * wa.renormalised + [fonts.note] * bool(fonts.note)
    said = "".join(f"; {n}" for n in notes)
    fig.suptitle(f"attention of every layer × head ({W} words; rows attend to columns{said})", fontsize=9)
    return fig


def save_head(wa: WordAttention, path: str | Path, layer: int | None = None, head: int | None = None) -> Path:
    return save_figure(head_figure(wa, layer, head), path)


def save_grid(wa: WordAttention, path: str | Path) -> Path:
    return save_figure(grid_figure(wa), path)
