// mealwatch complaint triage page: who is signed in, in which language, and the parts wired together (plain
// JavaScript modules, no libraries; nothing loaded from another site).
"use strict";

import { refreshAlerts, onOpen as alertsOpen } from "./alerts.js";
import { drawChart, refreshChart } from "./chart.js";
import { $, api, el, everyDistrict, jsonOptions, showDone, showError, state, visible } from "./common.js";
import { openAlert, openComplaint, onChange as detailChanged, wireDetail } from "./detail.js";
import { LANGUAGES, applyTexts, channelName, labelName, language, setLanguage, t } from "./i18n.js";
import { onOpen as intakeOpen, onSaved, renderResult, showSaveRights, wireIntake } from "./intake.js";
import { onChange as queueChanged, onOpen as queueOpen, refreshLog, resetPaging, wireFilters } from "./queue.js";

async function refreshHealth() {
  try {
    const h = await api("/api/health");
    state.modelVersion = h.model_version;
    $("#health").textContent = t("app.health", { model: h.model_version, n: h.complaints_stored ?? "?" });
  } catch (error) {
    $("#health").textContent = t("app.unreachable", { error: error.message });
  }
}

async function refreshAll(highlight = null) {
  await refreshLog(highlight);
  refreshHealth();
  refreshChart();
}

// accounts: who is signed in (nobody, with accounts on: the login page), their CSRF token, and logging out
async function startSession() {
  const session = await api("/api/session");
  state.accounts = session.accounts;
  if (!session.accounts) return true;
  if (!session.user) { window.location.assign("/login"); return false; }
  state.csrf = session.csrf_token;
  state.user = session.user;
  $("#officer").value = session.user.name;
  $("#officer").disabled = true;  // changes are recorded as made by the signed-in account
  $("#officer").closest("label").hidden = true;
  return true;
}

function showAccount() {
  if (!state.user) return;
  const who = state.user;
  const logout = el("button", { type: "button", id: "logout", class: "ghost", text: t("app.logout") });
  logout.addEventListener("click", async () => {
    try { await api("/api/logout", { method: "POST" }); } finally { window.location.assign("/login"); }
  });
  const districts = who.districts.includes("*") ? t("role.all") : who.districts.map(visible).join(", ");
  $("#account").replaceChildren(el("span", { dir: "auto", text: `${visible(who.name)} · ${t(`role.${who.role}`)} · ${districts}` }), logout);
  $("#account").hidden = false;
  const names = el("datalist", { id: "district-names" }, ...who.districts.filter((d) => d !== "*").map((d) => el("option", { value: d })));
  document.getElementById("district-names")?.remove();
  document.body.append(names);
  if (!everyDistrict() && who.districts.length === 1) $("#district").placeholder = who.districts[0];
}

// the page in ``lang``: every fixed text, then what was drawn from data
async function speak(lang, keep = true) {
  setLanguage(lang);
  applyTexts();
  for (const b of document.querySelectorAll("button.lang")) b.classList.toggle("on", b.dataset.lang === language());
  for (const select of document.querySelectorAll("select.channels")) {
    for (const option of select.options) if (option.value) option.textContent = channelName(option.value);
  }
  for (const option of $("#f-label").options) if (option.value) option.textContent = labelName(option.value);
  $("#zone-note").textContent = t("app.zone", { zone: state.zone });
  showAccount();
  if (state.user) showSaveRights();
  if (state.lastResult) renderResult(state.lastResult);
  drawChart(state.stats);
  refreshAlerts();
  refreshLog();
  refreshHealth();
  if (!keep) return;
  if (state.accounts) {
    try { await api("/api/preferences", jsonOptions("PUT", { language: language() })); } catch (error) { showError($("#log-error"), error); }
  } else {
    localStorage.setItem("mealwatch-language", language());
  }
}

async function start() {
  try {
    if (!(await startSession())) return;
  } catch (error) {
    showError($("#log-error"), error);
  }
  let lang = "en";
  try {
    const chosen = await api("/api/preferences");
    lang = chosen.chosen || state.accounts ? chosen.language : localStorage.getItem("mealwatch-language") || chosen.language;
  } catch { /* English */ }
  try {
    const settings = await api("/api/settings");
    state.zone = settings.timezone;
    state.channels = settings.channels;
    for (const select of document.querySelectorAll("select.channels")) {
      select.append(...settings.channels.map((c) => el("option", { value: c, text: c })));
    }
  } catch (error) {
    showError($("#log-error"), error);
  }
  try {
    const labels = await api("/api/labels");
    state.labels = labels.map((l) => l.label);
    $("#f-label").append(...labels.map((l) => el("option", { value: l.label, text: l.label, title: l.definition })));
  } catch (error) {
    showError($("#log-error"), error);
  }
  if (!state.accounts) $("#officer").value = localStorage.getItem("mealwatch-officer") || "";
  $("#officer").addEventListener("change", () => localStorage.setItem("mealwatch-officer", $("#officer").value.trim()));
  for (const b of document.querySelectorAll("button.lang")) {
    b.addEventListener("click", () => { if (LANGUAGES.includes(b.dataset.lang)) speak(b.dataset.lang); });
  }
  const open = (id) => openComplaint(id);
  queueOpen(open);
  intakeOpen(open);
  alertsOpen((alert) => openAlert(alert));
  const changed = async (id) => { showError($("#log-error"), null); await refreshAll(id); refreshAlerts(); };
  queueChanged(changed);
  detailChanged(changed);
  onSaved((id) => { resetPaging(); refreshAll(id); refreshAlerts(); });
  $("#filter-box").open = window.matchMedia("(min-width: 821px)").matches;  // a phone: the queue first, filters folded
  wireFilters(() => refreshLog());
  wireIntake();
  wireDetail();
  await speak(lang, false);
  showDone($("#log-done"), null);
  refreshChart();
  setInterval(refreshAlerts, 30000);
  let resizing;
  window.addEventListener("resize", () => { clearTimeout(resizing); resizing = setTimeout(() => drawChart(state.stats), 150); });
  document.body.dataset.ready = "true";
}

start();
