// "Why": the words of a complaint coloured by their share of the decision shown (the API's explain: "why"), with
// which part each share comes from (the encoder, the word patterns of the n-gram channel), and the warnings: a
// text the model cannot read gets no colours; shares that miss the decision are marked as rough.
"use strict";

import { el, visible } from "./common.js";
import { labelName, t } from "./i18n.js";

const points = (x) => `${x >= 0 ? "+" : "−"}${Math.abs(100 * x).toFixed(1)}`;

// the why of ``result`` (an answer of /api/classify with explain "why") in ``box``; ``ids``: give the main
// result's elements their ids (#why-label, #words, #method), for the page's one result
export function renderWhy(box, result, { ids = false, savedModel = null, currentModel = null } = {}) {
  const pick = el("select", { id: ids ? "why-label" : null, class: "why-label", "aria-label": t("why.for") });
  const words = el("p", { id: ids ? "words" : null, class: "words", dir: "auto" });
  const method = el("span", { id: ids ? "method" : null });
  const warnings = el("div", { class: "why-warnings" });
  const strongest = el("p", { class: "strongest small" });
  const tapped = el("p", { class: "tapped small", role: "status" });  // a phone has no hover: a tap says it
  box.replaceChildren(
    el("div", { class: "why-head" }, el("h3", { text: t("why.title") }), el("span", { class: "small", text: t("why.for") }), pick),
    words,
    el("p", { class: "muted small legend-line" }, el("span", { class: "swatch pos" }), ` ${t("why.toward")} `,
      el("span", { class: "swatch neg" }), ` ${t("why.against")} · `, method),
    tapped, warnings, strongest);
  if (savedModel && currentModel && savedModel !== currentModel) {
    warnings.append(el("p", { class: "muted small", text: t("why.other", { now: currentModel, then: savedModel }) }));
  }
  const sure = (l) => -(result.probabilities[l] ?? 0);
  const labels = (result.labels.length ? [...result.labels] : Object.keys(result.probabilities).slice(0, 1))
    .sort((a, b) => sure(a) - sure(b));  // the surest label first
  pick.replaceChildren(...labels.map((l) => el("option", { value: l, text: labelName(l) })));
  const draw = () => { tapped.textContent = ""; drawLabel(result, pick.value, { words, method, warnings, strongest, tapped }); };
  pick.onchange = draw;
  draw();
}

function drawLabel(result, label, parts) {
  const { words, method, warnings, strongest, tapped } = parts;
  words.replaceChildren();
  for (const old of warnings.querySelectorAll(".warning")) old.remove();
  strongest.replaceChildren();
  const imp = result.importance;
  if (!imp || !imp.scores[label]) { words.textContent = visible(result.text); method.textContent = ""; return; }
  const notices = imp.notices || [];
  if (notices.includes("unreadable")) {
    words.textContent = visible(result.text);
    method.textContent = "";
    warnings.append(el("p", { class: "warning", role: "status", text: t("why.unreadable") }));
    return;
  }
  if ((imp.no_clear_signal || []).includes(label)) {
    words.textContent = visible(result.text);
    method.textContent = t("why.noSignal");
    return;
  }
  const scores = imp.scores[label];
  const enc = imp.parts && imp.parts.encoder ? imp.parts.encoder[label] : null;
  const ng = imp.parts && imp.parts.ngram ? imp.parts.ngram[label] : null;
  const top = Math.max(1e-9, ...scores.map(Math.abs));
  // offsets count Unicode code points (Python's str), not UTF-16 units: slice an array of code points
  const chars = Array.from(result.text);
  const piece = (a, b) => visible(chars.slice(a, b).join(""));
  let at = 0;
  imp.words.forEach((w, i) => {
    if (w.start > at) words.append(piece(at, w.start));
    const title = ng ? t("why.word", { share: points(scores[i]), enc: points(enc[i]), ng: points(ng[i]) })
      : t("why.wordEnc", { share: points(scores[i]) });
    const mark = el("mark", { text: piece(w.start, w.end), title, "data-score": scores[i].toFixed(4), tabindex: "0" });
    mark.addEventListener("click", () => { tapped.textContent = `${visible(w.word)}: ${title}`; });
    const strength = Math.abs(scores[i]) / top;
    mark.style.background = `rgba(var(${scores[i] >= 0 ? "--pos" : "--neg"}), ${(0.08 + 0.62 * strength).toFixed(2)})`;
    words.append(mark);
    at = w.end;
  });
  if (at < chars.length) words.append(piece(at, chars.length));
  if (imp.method === "why" && imp.output) {
    const p = imp.output[label], base = imp.baseline_output[label], sum = scores.reduce((a, b) => a + b, 0);
    const own = imp.part_outputs || {};
    const caption = ng ? t("why.parts", { label: labelName(label), p: Math.round(100 * p),
      enc: Math.round(100 * own.encoder[label]), ng: Math.round(100 * own.ngram[label]),
      we: (1 - imp.ngram_weight).toFixed(1), wn: imp.ngram_weight.toFixed(1) })
      : t("why.encoderOnly", { label: labelName(label), p: Math.round(100 * p) });
    method.textContent = `${caption} ${t("why.sum", { sum: points(sum), base: Math.round(100 * base),
      left: points(imp.delta[label]) })}`;
    const gap = Math.abs(imp.delta[label]);
    if (gap > Math.max(0.1 * Math.abs(p - base), 0.01)) {
      warnings.append(el("p", { class: "warning", role: "status", text: t("why.approximate", { gap: (100 * gap).toFixed(1) }) }));
    }
  } else {
    method.textContent = imp.note || "";
  }
  if (imp.truncated) warnings.append(el("p", { class: "warning", text: t("why.cut") }));
  if ((imp.notices || []).includes("view_not_shown")) warnings.append(el("p", { class: "warning", text: t("why.view_not_shown") }));
  const order = scores.map((_, i) => i).filter((i) => scores[i] > 0).sort((a, b) => scores[b] - scores[a]).slice(0, 3);
  if (order.length) {
    strongest.append(`${t("why.strongest")} `);
    order.forEach((i, n) => strongest.append(...(n ? [" · "] : []),
      el("b", { dir: "auto", text: visible(imp.words[i].word) }), ` ${points(scores[i])}`));
  }
}
