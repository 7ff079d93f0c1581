"""Attention and explanations in the terminal, with rich: tables, and words coloured by importance
(red pushes toward the label, blue against it; plain text when the output is not a terminal)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from .explanation import Explanation
from .focus import FocusReport, label_of
from .word_attention import WordAttention


def _console(console: Console | None) -> Console:
    if console is not None:
        return console
    console = Console(highlight=False, soft_wrap=True)  # long lines are not cut; tables still fit the width
    if not console.is_terminal:
        console.width = max(console.width, 120)  # piped output: do not squeeze the tables to 80 columns
    return console


def view_name(wa: WordAttention, layer: int | None, head: int | None) -> str:
    if layer is None:
        return f"mean of all {wa.layers} layers × {wa.heads} heads"
    if head is None:
        return f"layer {layer}, mean of its {wa.heads} heads"
    return f"layer {layer}, head {head}"


def special_note(wa: WordAttention) -> str:
    if wa.renormalised:
        return "[CLS] and [SEP] left out; each row rescaled to sum to 1 over the words alone"
    return "[CLS] and [SEP] shown as words; each row sums to 1"


def print_summary(
    wa: WordAttention, layer: int | None = None, head: int | None = None, top: int = 3, console: Console | None = None
) -> None:
    """Each word's most attended words in one view (a head, a layer's mean, or the mean of everything)."""
    out = _console(console)
    matrix = wa.view(layer, head)  # (W, W)
    out.print(f"{len(wa.words)} words · {wa.layers} layers × {wa.heads} heads · {view_name(wa, layer, head)}")
    out.print(special_note(wa) + ". Layers and heads count from 0.")
    if wa.truncated:
        out.print("[yellow]the text was longer than the model reads; only its beginning is shown[/yellow]")
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    table.add_column("word")
    table.add_column(f"attends most to (top {top})")
    for i in range(len(wa.words)):
        row = matrix[i]
        order = row.argsort(descending=True)[:top].tolist()
        table.add_row(label_of(wa.words, i), "  ".join(f"{label_of(wa.words, j)} {float(row[j]):.2f}" for j in order))
    out.print(table)


def print_focus(
    report: FocusReport, wa: WordAttention, layer: int | None = None, console: Console | None = None
) -> None:
    """The ``--word`` report: per layer where the word looks, then the heads ranked per candidate word."""
    out = _console(console)
    out.print(f'[bold]Where "{report.word}" looks[/bold] ({special_note(wa)}; layers and heads count from 0)')
    layers = range(wa.layers) if layer is None else [layer]
    table = Table(box=None, pad_edge=False, header_style="bold")
    table.add_column("layer")
    table.add_column(f"most attended words, mean over the {wa.heads} heads")
    for l in layers:
        table.add_row(str(l), "  ".join(f"{w} {v:.2f}" for w, v in report.top_per_layer[l]))
    out.print(table)
    if not report.candidates:
        return
    out.print()
    out.print(
        f'[bold]Weight from "{report.word}" on each candidate, per layer × head[/bold] (highest per head in bold)'
    )
    grid = Table(box=None, pad_edge=False, header_style="bold")
    grid.add_column("layer")
    grid.add_column("word")
    for h in range(wa.heads):
        grid.add_column(f"h{h}", justify="right")
    for l in layers:
        for c, cand in enumerate(report.candidates):
            cells = []
            for h in range(wa.heads):
                values = report.weights[l, h]
                text = f"{float(values[c]):.2f}".removeprefix("0")
                cells.append(f"[bold]{text}[/bold]" if int(values.argmax()) == c else text)
            grid.add_row(str(l) if c == 0 else "", cand, *cells)
    out.print(grid)
    out.print()
    for cand in report.candidates:
        heads = ", ".join(f"L{h.layer}H{h.head} {h.weight:.2f}" for h in report.top_heads[cand])
        out.print(f'top heads for "{report.word}" → "{cand}": {heads}')
    if len(report.candidates) > 1:
        for cand in report.candidates:
            heads = ", ".join(f"L{h.layer}H{h.head} +{h.weight:.2f}" for h in report.preferred[cand]) or "none"
            out.print(f'heads that prefer "{cand}" most (margin over the next candidate): {heads}')
    total = sum(report.wins.values())
    wins = ", ".join(f"{c} {n}" for c, n in report.wins.items())
    out.print(f"heads in which each candidate gets the most weight (of {total}): {wins}")


def coloured_words(words: list[str], values: list[float]) -> Text:
    """Words on a background from blue (negative) through white to red (positive), scaled to the largest |value|."""
    scale = max((abs(v) for v in values), default=0.0) or 1.0
    text = Text()
    for i, (word, value) in enumerate(zip(words, values)):
        t = min(abs(value) / scale, 1.0)
        fade = int(round(255 * (1 - 0.85 * t)))
        bg = f"rgb(255,{fade},{fade})" if value > 0 else f"rgb({fade},{fade},255)"
        if i:
            text.append(" ")
        text.append(word, style=f"black on {bg}")
    return text


def print_explanation(explanation: Explanation, top: int = 8, console: Console | None = None) -> None:
    """Predicted labels, the words coloured by their importance for each, the top words and rollout."""
    out = _console(console)
    e = explanation
    probs = ", ".join(f"{label} {e.probabilities[label]:.3f}" for label in e.predicted)
    out.print(f"[bold]predicted:[/bold] {probs}")
    if e.truncated:
        out.print("[yellow]the text was longer than the model reads; only its beginning was used[/yellow]")
    for label in e.predicted:
        values = e.attributions[label]
        out.print()
        out.print(
            f"[bold]{label}[/bold] — integrated gradients of P({label}) over {e.steps} steps "
            "(red pushes toward the label, blue against):"
        )
        out.print(coloured_words(e.words, values))
        table = Table(box=None, pad_edge=False, header_style="bold")
        table.add_column("word")
        table.add_column("importance", justify="right")
        table.add_column("rollout", justify="right")
        order = sorted(range(len(values)), key=lambda i: abs(values[i]), reverse=True)[:top]
        for i in order:
            table.add_row(label_of(e.words, i), f"{values[i]:+.4f}", f"{e.rollout[i]:.3f}")
        out.print(table)
        at_text = e.encoder_probabilities.get(label, e.probabilities[label])
        change = at_text - e.baseline_probabilities[label]
        fused = abs(at_text - e.probabilities[label]) >= 5e-5
        whose = " (the encoder's; the decision fuses it with the n-gram channel)" if fused else ""
        out.print(
            f"Σ importance {sum(values):+.4f} = P(text){whose} {at_text:.4f} − P(baseline) "
            f"{e.baseline_probabilities[label]:.4f} ({change:+.4f}), convergence delta {e.delta[label]:+.5f}"
        )
    out.print()
    out.print(f"attention rollout ({e.rollout_row}; {e.rollout_special:.2f} rests on [CLS]/[SEP]):")
    out.print(coloured_words(e.words, e.rollout))
    out.print(f"baseline: {e.baseline}")
