// Changing a saved complaint: its status, its true labels, who works on it, notes, and (for an account that may)
// its district and block. Each save says what was kept, in words, where the officer is looking.
"use strict";

import { $, api, el, everyDistrict, jsonOptions, officerHeaders, showDone, showError, state } from "./common.js";
import { labelName, t } from "./i18n.js";

//: status -> the moves the page offers from it: (status, button text key)
export const MOVES = { new: [["in_progress", "move.start"]], in_progress: [["resolved", "move.resolve"], ["new", "move.back"]],
  resolved: [["in_progress", "move.reopen"]] };

export async function changeStatus(id, to, after) {
  try {
    await api(`/api/complaints/${id}`, jsonOptions("PATCH", { status: to }, officerHeaders()));
    showError($("#log-error"), null);
    showDone($("#log-done"), t("edit.saved", { id, what: t(`status.${to}`) }));
  } catch (error) {
    showError($("#log-error"), error);
  }
  after();
}

export function statusButtons(c, after) {
  if (!mayChange()) return [];
  return (MOVES[c.status] || []).map(([to, key]) => {
    const b = el("button", { type: "button", class: "ghost", "data-to": to, text: t(key) });
    b.addEventListener("click", () => changeStatus(c.id, to, after));
    return b;
  });
}

export function mayChange() { return !state.accounts || (state.user && state.user.role !== "viewer"); }

// the editor of labels, assignee, notes (and district, block) of complaint ``c``; ``saved(changed)`` after a save
export function editor(c, saved) {
  const current = new Set(c.corrected_labels || c.labels);
  const boxes = state.labels.map((l) => el("label", { class: "check" },
    Object.assign(el("input", { type: "checkbox", value: l, "data-label": l }), { checked: current.has(l) }), labelName(l)));
  const assignee = el("input", { type: "text", class: "assignee", maxlength: "200", placeholder: t("edit.assign"), "aria-label": t("edit.assign") });
  assignee.value = c.assignee || "";
  const notes = el("textarea", { class: "notes-input", rows: "2", maxlength: "5000", placeholder: t("edit.notes"), "aria-label": t("edit.notes") });
  notes.value = c.notes || "";
  const movable = everyDistrict() || (state.user && state.user.districts.length > 1);
  const district = el("input", { type: "text", class: "move-district", maxlength: "200", list: "district-names",
    placeholder: t("edit.district"), "aria-label": t("edit.district") });
  const block = el("input", { type: "text", class: "move-block", maxlength: "200", placeholder: t("edit.block"), "aria-label": t("edit.block") });
  district.value = c.district || "";
  block.value = c.block || "";
  const save = el("button", { type: "button", class: "save-correction", text: t("edit.save") });
  const problem = el("p", { class: "error", role: "alert" });
  problem.hidden = true;
  const place = movable ? el("div", { class: "move" }, district, block) : null;
  const box = el("div", { class: "editor" }, el("div", { class: "label-boxes" }, ...boxes), assignee, notes, place, save, problem);
  save.addEventListener("click", async () => {
    const labels = [...box.querySelectorAll("input[data-label]:checked")].map((b) => b.value);
    const body = {};
    const was = c.corrected_labels || c.labels;
    if (labels.length !== was.length || labels.some((l) => !was.includes(l))) body.labels = labels;
    if (assignee.value.trim() !== (c.assignee || "")) body.assignee = assignee.value;
    if (notes.value.trim() !== (c.notes || "")) body.notes = notes.value;
    if (movable && district.value.trim() !== (c.district || "")) body.district = district.value;
    if (movable && block.value.trim() !== (c.block || "")) body.block = block.value;
    if (!Object.keys(body).length) { showDone($("#log-done"), t("edit.nothing")); return; }
    save.disabled = true;
    try {
      const changed = await api(`/api/complaints/${c.id}`, jsonOptions("PATCH", body, officerHeaders()));
      const what = body.labels ? t("edit.labelsNow", { labels: labels.map(labelName).join(", ") }) : t("edit.changed");
      showDone($("#log-done"), t("edit.saved", { id: c.id, what }));
      showError(problem, null);
      saved(changed);
    } catch (error) {
      showError(problem, error);
    } finally {
      save.disabled = false;
    }
  });
  return box;
}
