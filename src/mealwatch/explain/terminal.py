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
    """Predicted labels, the words coloured by their share of each, the top words and rollout.

    The tables put the word last: a terminal draws Devanagari (and other scripts whose vowel signs and conjuncts
    it cannot measure) wider or narrower than any width count says, and a word in the last column shifts nothing.
    """
    out = _console(console)
    e = explanation
    probs = ", ".join(f"{label} {e.probabilities[label]:.3f}" for label in e.predicted)
    out.print(f"[bold]predicted:[/bold] {probs}")
    if e.truncated:
        out.print("[yellow]the text was longer than the model reads; only its beginning was used[/yellow]")
    if "unreadable" in e.notices:
        out.print("[yellow]most of its words are unreadable to the model's vocabulary: its labels are a guess, and "
                  "these shares mean little[/yellow]")  # fmt: skip
    fused = bool(e.ngram_weight) and "ngram" in e.parts
    for label in e.predicted:
        values = e.attributions[label]
        out.print()
        how = (f"the encoder's part (integrated gradients, {e.steps} steps, weight {1 - e.ngram_weight:g}) plus the "
               f"n-gram channel's (exact, weight {e.ngram_weight:g})" if fused
               else f"integrated gradients over {e.steps} steps")  # fmt: skip
        out.print(f"[bold]{label}[/bold] — each word's share of P({label}) = {e.probabilities[label]:.3f}: {how} "
                  "(red pushes toward the label, blue against):")  # fmt: skip
        out.print(coloured_words(e.words, values))
        table = Table(box=None, pad_edge=False, header_style="bold")
        table.add_column("share", justify="right")
        if fused:
            table.add_column("encoder", justify="right")
            table.add_column("n-gram", justify="right")
        table.add_column("rollout", justify="right")
        table.add_column("word")
        order = sorted(range(len(values)), key=lambda i: abs(values[i]), reverse=True)[:top]
        for i in order:
            parts = [f"{e.parts[p][label][i]:+.4f}" for p in ("encoder", "ngram")] if fused else []
            table.add_row(f"{values[i]:+.4f}", *parts, f"{e.rollout[i]:.3f}", label_of(e.words, i))
        out.print(table)
        change = e.probabilities[label] - e.baseline_probabilities[label]
        out.print(
            f"Σ shares {sum(values):+.4f} = P(text) {e.probabilities[label]:.4f} − P(baseline) "
            f"{e.baseline_probabilities[label]:.4f} ({change:+.4f}), left over (convergence delta) "
            f"{e.delta[label]:+.5f}"
        )
        if "approximate" in e.notices and abs(e.delta[label]) > 0.1 * abs(change):
            out.print(f"[yellow]the shares miss the decision by {abs(e.delta[label]):.4f}: run with more --steps "
                      "for a closer integral[/yellow]")  # fmt: skip
    out.print()
    out.print(f"attention rollout ({e.rollout_row}; {e.rollout_special:.2f} rests on [CLS]/[SEP]) — what the pooled "
              "vector draws on, not why a label was chosen:")  # fmt: skip
    out.print(coloured_words(e.words, e.rollout))
    out.print(f"baseline: {e.baseline}")
