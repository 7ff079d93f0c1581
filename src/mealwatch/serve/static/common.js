// What every part of the page shares: its state, building elements, talking to the API, times and texts shown.
// Every text from the server goes in with textContent (never as HTML).
"use strict";

import { plainError, t } from "./i18n.js";

export const $ = (sel) => document.querySelector(sel);
//: pages are fetched by cursor (keyset paging): cursors holds the cursor of each page after the first one shown
export const state = { labels: [], offset: 0, total: 0, zone: "UTC", cursors: [], next: null, csrf: null,
  accounts: false, user: null, channels: [], modelVersion: null };

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") node.className = v; else if (k === "text") node.textContent = v; else node.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

// an API error: the page's own words for what happened, the server's detail after them
export class ApiFailure extends Error {
  constructor(status, detail) {
    const lead = { 422: "err.lead422", 403: "err.lead403", 503: "err.lead503" }[status] || "err.lead";
    super(t(lead, { error: plainError(detail) }));
    this.status = status;
    this.detail = detail;
  }
}

// with accounts on, a change carries the session's CSRF token; an ended session goes back to the login page
export async function api(path, options = {}) {
  const method = (options.method || "GET").toUpperCase();
  if (state.csrf && method !== "GET") options = { ...options, headers: { ...(options.headers || {}), "X-CSRF-Token": state.csrf } };
  let response;
  try {
    response = await fetch(path, options);
  } catch (error) {
    throw new Error(t("err.network", { error: error.message }));
  }
  if (response.status === 401 && state.accounts) { window.location.assign("/login"); throw new Error(t("err.login")); }
  const type = response.headers.get("content-type") || "";
  const body = type.includes("json") ? await response.json() : await response.text();
  if (!response.ok) throw new ApiFailure(response.status, (body && body.error) || `${response.status} ${response.statusText}`);
  return body;
}

export function jsonOptions(method, body, extraHeaders = {}) {
  return { method, headers: { "Content-Type": "application/json", ...extraHeaders }, body: JSON.stringify(body) };
}

// a saving request carries a fresh Idempotency-Key, so that the server saves it once however often it arrives
export function idempotencyKey() {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

export function showError(node, error) {
  node.hidden = !error;
  node.textContent = error ? String(error.message || error) : "";
}

export function showDone(node, text) {
  node.hidden = !text;
  node.textContent = text || "";
}

// bidirectional embedding, override and isolate controls (U+202A-202E, U+2066-2069) could flip how a text
// reads on screen ("\u202Etxt.exe" shows as "exe.txt"): they are left out of what is shown (the log keeps the
// text whole), and each shown text is its own direction-isolated paragraph (dir="auto")
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;
export function visible(text) { return String(text ?? "").replace(BIDI_CONTROLS, ""); }

// times come from the API in UTC; they are shown in the service's zone (mealwatch serve --timezone)
function parts(iso, withZone) {
  const options = { timeZone: state.zone, year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit",
    minute: "2-digit", hourCycle: "h23" };
  if (withZone) options.timeZoneName = "short";
  const found = new Intl.DateTimeFormat("en-GB", options).formatToParts(new Date(iso));
  return (type) => (found.find((p) => p.type === type) || {}).value || "";
}
export function when(iso) {
  if (!iso) return "";
  const get = parts(iso, true);
  return `${get("day")}/${get("month")}/${get("year")} ${get("hour")}:${get("minute")} ${get("timeZoneName")}`;
}
// an incident time: its day alone when it is the day's start in the zone (given as a day), else day and time
export function incident(iso) {
  if (!iso) return "";
  const get = parts(iso, false);
  const dayText = `${get("day")}/${get("month")}/${get("year")}`;
  return get("hour") === "00" && get("minute") === "00" ? dayText : `${dayText} ${get("hour")}:${get("minute")}`;
}
// the UTC offset of the service's zone on a day, as ISO writes it: "+05:30"
export function zoneOffset(dayText) {
  const found = new Intl.DateTimeFormat("en-US", { timeZone: state.zone, timeZoneName: "longOffset" })
    .formatToParts(new Date(`${dayText}T12:00:00Z`));
  const name = (found.find((p) => p.type === "timeZoneName") || {}).value || "GMT";
  return name === "GMT" ? "+00:00" : name.slice(3);
}
export function nextDay(dayText) { return new Date(Date.parse(`${dayText}T00:00:00Z`) + 86400000).toISOString().slice(0, 10); }

export function officerHeaders(extra = {}) {
  const name = ($("#officer").value || "").trim();
  return name && !state.accounts ? { ...extra, "X-Officer": name } : extra;
}

// may this user save complaints and change them (officers and admins; everyone without accounts)
export function maySave() { return !state.accounts || (state.user && state.user.role !== "viewer"); }
// does this user see every district (a state account; everyone without accounts)
export function everyDistrict() { return !state.accounts || (state.user && state.user.districts.includes("*")); }

export function percent(p) { return `${Math.round(p * 100)}%`; }
