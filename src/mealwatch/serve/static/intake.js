// Complaints coming in: one at a time (with its record), pasted many at a time, or a CSV file; every line's result
// or refusal shown by line, and the officer chooses whether a bad line stops the rest.
"use strict";

import { $, ApiFailure, api, el, idempotencyKey, jsonOptions, maySave, percent, showDone, showError, state, visible } from "./common.js";
import { labelName, plainError, plainReason, t } from "./i18n.js";
import { renderWhy } from "./why.js";

let afterSave = () => {};
let opener = () => {};
export function onSaved(refresh) { afterSave = refresh; }
export function onOpen(open) { opener = open; }

// --- one complaint ----------------------------------------------------------------------------------------

function renderBars(result) {
  const entries = Object.entries(result.probabilities).sort((a, b) => b[1] - a[1]);
  $("#labels").replaceChildren(...entries.map(([label, p]) => {
    const fill = el("div", { class: "fill" });
    fill.style.width = `${(p * 100).toFixed(1)}%`;
    return el("li", { class: result.labels.includes(label) ? "on" : "", "data-label": label }, el("span", { text: labelName(label) }),
      el("div", { class: "track" }, fill), el("span", { class: "num", text: percent(p) }));
  }));
}

export function renderResult(result) {
  $("#result").hidden = false;
  const badge = $("#urgency");
  badge.className = `badge ${result.urgency}`;
  badge.textContent = t("urgency.badge", { u: t(`urgency.${result.urgency}`) });
  const review = $("#review");
  review.hidden = !result.needs_review;
  review.replaceChildren(...(result.review_reasons || []).map((r) => el("li", { text: plainReason(r) })));
  $("#saved").textContent = result.id != null ? t("one.saved", { id: result.id }) : t("one.notSaved");
  $("#open-saved").hidden = result.id == null;
  $("#open-saved").onclick = () => opener(result.id);
  const unassigned = result.id != null && state.accounts && !result.district;
  $("#no-district").hidden = !unassigned;
  $("#no-district").textContent = unassigned ? t("one.noDistrict") : "";
  $("#attention-link").href = `/attention?text=${encodeURIComponent(result.text)}&explain=true`;
  renderBars(result);
  renderWhy($("#why"), result, { ids: true });
  state.lastResult = result;
}

async function classifyOne(event) {
  event.preventDefault();
  const button = $("#classify-btn");
  button.disabled = true;
  showError($("#classify-error"), null);
  try {
    // the page shows which words drove the decision: it asks for them (the API computes them only when asked)
    const body = { text: $("#text").value, save: maySave() && $("#save").checked, explain: "why" };
    for (const [id, key] of [["#school", "school"], ["#district", "district"], ["#block", "block"], ["#incident", "incident_date"],
      ["#channel", "channel"]]) {
      if ($(id).value.trim()) body[key] = $(id).value.trim();
    }
    const result = await api("/api/classify", jsonOptions("POST", body, { "Idempotency-Key": idempotencyKey() }));
    renderResult(result);
    if (result.id != null) afterSave(result.id);
  } catch (error) {
    showError($("#classify-error"), error);
  } finally {
    button.disabled = false;
  }
}

// --- many complaints, pasted ------------------------------------------------------------------------------

export function pastedItems() {
  const shared = { district: $("#bulk-district").value.trim(), block: $("#bulk-block").value.trim(),
    incident_date: $("#bulk-date").value, channel: $("#bulk-channel").value };
  const items = [];
  $("#bulk-text").value.split(/\r?\n/).forEach((line, i) => {
    if (!line.trim()) return;
    const cells = (line.includes("\t") ? line.split("\t") : line.split("|")).map((c) => c.trim());
    const [text, school, date, block, district] = cells;
    const item = { text };
    const fields = { school, incident_date: date || shared.incident_date, block: block || shared.block,
      district: district || shared.district, channel: shared.channel };
    for (const [k, v] of Object.entries(fields)) if (v) item[k] = v;
    items.push({ line: i + 1, item });
  });
  return items;
}

// the server names a batch's items items[3]; the officer's paste has lines
function byLine(message, lines) { return String(message).replace(/items\[(\d+)\]/g, (m, i) => t("t.line") + " " + lines[+i]); }

function resultRow(line, result, why, text) {
  return el("tr", { "data-line": line, class: why ? "refused" : "" }, el("td", { text: String(line) }),
    el("td", { text: why ? t("t.refused", { why: plainError(why) }) : result.id != null ? t("t.savedAs", { id: result.id }) : t("t.classified") }),
    el("td", { class: "wrap", dir: "auto", text: visible(text) }));
}

async function pasteMany(event) {
  event.preventDefault();
  const button = $("#bulk-btn");
  button.disabled = true;
  showError($("#bulk-error"), null);
  showDone($("#bulk-done"), null);
  const partial = document.querySelector("input[name='bulk-partial']:checked").value === "true";
  const rows = [];
  let saved = 0, refused = 0, lines = 0;
  try {
    const items = pastedItems();
    if (!items.length) throw new Error(t("paste.empty"));
    lines = items.length;
    for (let start = 0; start < items.length; start += 256) {  // the API takes up to 256 at once
      const part = items.slice(start, start + 256);
      const numbers = part.map((p) => p.line);
      let answer;
      try {
        answer = await api("/api/classify/batch", jsonOptions("POST", { items: part.map((p) => p.item), save: true, partial },
          { "Idempotency-Key": idempotencyKey() }));
      } catch (error) {
        if (error instanceof ApiFailure) throw new Error(byLine(error.message, numbers));
        throw error;
      }
      const kept = part.map((_, i) => i).filter((i) => !answer.refused.some((r) => r.index === i));
      kept.forEach((i, k) => rows.push(resultRow(numbers[i], answer.results[k], null, part[i].item.text)));
      for (const r of answer.refused) rows.push(resultRow(numbers[r.index], null, r.error, part[r.index].item.text));
      saved += answer.count;
      refused += answer.refused.length;
    }
    rows.sort((a, b) => +a.dataset.line - +b.dataset.line);
    showDone($("#bulk-done"), refused ? t("paste.done", { saved, lines }) : t("paste.doneAll", { n: saved }));
    if (!refused) $("#bulk-text").value = "";
    afterSave(null);
  } catch (error) {
    showError($("#bulk-error"), error);
    if (saved) showDone($("#bulk-done"), t("paste.done", { saved, lines }));
  } finally {
    $("#bulk-table tbody").replaceChildren(...rows);
    $("#bulk-results").hidden = rows.length === 0;
    button.disabled = false;
  }
}

// --- a CSV file -------------------------------------------------------------------------------------------

async function uploadFile(event) {
  event.preventDefault();
  const button = $("#csv-btn");
  button.disabled = true;
  showError($("#csv-error"), null);
  $("#csv-results").hidden = true;
  try {
    const file = $("#csv-file").files[0];
    const form = new FormData();
    form.append("file", file);
    const save = maySave() && $("#csv-save").checked;
    form.append("save", save ? "true" : "false");
    form.append("partial", document.querySelector("input[name='csv-partial']:checked").value);
    const headers = save ? { "Idempotency-Key": idempotencyKey() } : {};
    const answer = await api("/api/classify/csv?with_csv=true", { method: "POST", body: form, headers });
    const rows = answer.results.map((r) => el("tr", { "data-line": r.line }, el("td", { text: String(r.line) }),
      el("td", { text: r.id != null ? t("t.savedAs", { id: r.id }) : t("t.classified") }),
      el("td", {}, el("span", { class: `badge ${r.urgency}`, text: t(`urgency.${r.urgency}`) })),
      el("td", { text: r.labels.map(labelName).join(", ") }), el("td", { dir: "auto", text: visible(r.school || "") }),
      el("td", { class: "wrap", dir: "auto", text: visible(r.text) })));
    for (const r of answer.refused) {
      rows.push(el("tr", { "data-line": r.line, class: "refused" }, el("td", { text: String(r.line) }),
        el("td", { colspan: "5", text: t("t.refused", { why: plainError(r.error) }) })));
    }
    rows.sort((a, b) => +a.dataset.line - +b.dataset.line);
    $("#csv-table tbody").replaceChildren(...rows);
    const counted = t(save ? "upload.countSaved" : "upload.count", { n: answer.count });
    const unassigned = save && state.accounts ? answer.results.filter((r) => !r.district).length : 0;
    $("#csv-count").textContent = [counted, answer.refused.length ? t("upload.refused", { n: answer.refused.length }) : "",
      unassigned ? t("upload.noDistrict", { n: unassigned }) : ""].filter(Boolean).join(" · ");
    $("#csv-left-out").hidden = !answer.left_out_columns.length;
    $("#csv-left-out").textContent = answer.left_out_columns.length ? t("upload.leftOut", { columns: answer.left_out_columns.join(", ") }) : "";
    const link = $("#csv-download");
    if (link.href.startsWith("blob:")) URL.revokeObjectURL(link.href);
    link.href = URL.createObjectURL(new Blob([answer.csv], { type: "text/csv;charset=utf-8" }));
    link.download = `${file.name.replace(/\.csv$/i, "") || "complaints"}-classified.csv`;
    $("#csv-results").hidden = false;
    if (save) afterSave(null);
  } catch (error) {
    showError($("#csv-error"), error);
  } finally {
    button.disabled = false;
  }
}

export function wireIntake() {
  $("#classify-form").addEventListener("submit", classifyOne);
  $("#bulk-form").addEventListener("submit", pasteMany);
  $("#upload-form").addEventListener("submit", uploadFile);
}

// a viewer may classify but not save: the boxes say so instead of failing at the server
export function showSaveRights() {
  const can = maySave();
  for (const id of ["#save", "#csv-save"]) { $(id).checked = can && $(id).checked; $(id).disabled = !can; }
  $("#bulk-btn").disabled = !can;
  $("#save-note").hidden = can;
  $("#save-note").textContent = can ? "" : t("one.viewerNote", { role: t(`role.${state.user.role}`) });
}
