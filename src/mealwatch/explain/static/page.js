// mealwatch attention page: a head view (lines between two columns of words, on a canvas)
// and a model view (a small map per layer × head). Reads the JSON embedded in the page;
// makes no network request. window.mealwatchView reports what was last drawn (for tests).
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("mealwatch-data").textContent);
  const words = data.words, special = data.special || words.map(() => false);
  const W = words.length, L = data.layers, H = data.heads;
  // A[layer][head][query] is a Float64Array over keys; the page stores whole thousandths
  const A = data.attention_milli.map((layer) => layer.map((head) => head.map(
    (row) => Float64Array.from(row, (v) => v / data.attention_scale))));
  delete data.attention_milli;
  const $ = (id) => document.getElementById(id);
  const start = data.initial || {};
  const state = {
    layer: Number.isInteger(start.layer) ? start.layer : 0,
    heads: new Set(Array.isArray(start.heads) ? start.heads : [...Array(H).keys()]),
    threshold: typeof start.threshold === "number" ? start.threshold : (W > 60 ? 0.05 : 0.02),
    minThreshold: W > 60 ? 0.01 : 0,  // long texts: never draw the countless faint lines below 0.01
    focus: Number.isInteger(start.focus) ? { side: "q", index: start.focus } : null,
    pinned: Number.isInteger(start.focus),
  };
  const BUCKETS = 10;

  function headColour(h, alpha) {
    const hue = Math.round((h * 360) / Math.max(H, 1) + 200) % 360;
    return alpha === undefined ? `hsl(${hue} 70% 42%)` : `hsl(${hue} 70% 42% / ${alpha})`;
  }
  function label(i) {
    const same = [];
    words.forEach((w, j) => { if (w.toLowerCase() === words[i].toLowerCase()) same.push(j); });
    return same.length > 1 && !special[i] ? `${words[i]}@${same.indexOf(i) + 1}` : words[i];
  }

  // ---- header -------------------------------------------------------------------------
  $("text").textContent = data.text;
  const notes = [`${W} words`, `${L} layers × ${H} heads (counted from 0)`, `model: ${data.model || "?"}`];
  notes.push(data.renormalised ? "[CLS]/[SEP] left out, each row rescaled to sum to 1"
    : "[CLS]/[SEP] shown as words; each row sums to 1");
  notes.push("a word's row = mean over its WordPiece queries; column = sum over its key pieces");
  if (data.truncated) notes.push("the text was cut to the model's length limit");
  $("meta").textContent = notes.join(" · ");

  // ---- controls -----------------------------------------------------------------------
  const layerSelect = $("layer");
  for (let l = 0; l < L; l++) layerSelect.add(new Option(`${l}`, `${l}`));
  layerSelect.value = `${state.layer}`;
  layerSelect.addEventListener("change", () => { state.layer = +layerSelect.value; redraw(); });
  const headBoxes = [];
  for (let h = 0; h < H; h++) {
    const tag = document.createElement("label");
    tag.className = "head-toggle";
    tag.style.setProperty("--c", headColour(h));
    tag.title = `head ${h}`;
    const box = document.createElement("input");
    box.type = "checkbox";
    box.dataset.head = `${h}`;
    box.addEventListener("change", () => {
      if (box.checked) state.heads.add(h); else state.heads.delete(h);
      redraw();
    });
    const dot = document.createElement("span");
    dot.className = "dot";
    tag.append(box, dot, document.createTextNode(`${h}`));
    $("heads").append(tag);
    headBoxes.push(box);
  }
  $("all-heads").addEventListener("click", () => { state.heads = new Set([...Array(H).keys()]); redraw(); });
  $("no-heads").addEventListener("click", () => { state.heads = new Set(); redraw(); });
  const slider = $("threshold");
  slider.min = `${state.minThreshold}`;
  state.threshold = Math.max(state.threshold, state.minThreshold);
  slider.value = `${state.threshold}`;
  slider.addEventListener("input", () => { state.threshold = +slider.value; redraw(); });

  // ---- head view ----------------------------------------------------------------------
  const canvas = $("head-canvas"), ctx = canvas.getContext("2d");
  const FAMILY = getComputedStyle(document.body).fontFamily;  // page.css: a face for every Indian script
  const FONT = `14px ${FAMILY}`;
  const geo = {};
  function layout() {
    ctx.font = FONT;
    const widest = Math.max(40, ...words.map((_, i) => ctx.measureText(label(i)).width));
    geo.col = Math.ceil(widest) + 16;
    geo.gap = Math.max(220, Math.min(420, 60 + W * 4));
    geo.row = W > 80 ? 17 : 22;
    geo.top = 30;
    geo.pad = 44;                  // room for the weights printed beside the words
    geo.width = geo.pad * 2 + geo.col * 2 + geo.gap;
    geo.height = geo.top + W * geo.row + 10;
    geo.left = geo.pad + geo.col;    // where lines leave the query words
    geo.right = geo.left + geo.gap;  // where lines reach the key words
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(geo.width * dpr);
    canvas.height = Math.round(geo.height * dpr);
    canvas.style.width = `${geo.width}px`;
    canvas.style.height = `${geo.height}px`;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  }
  const rowY = (i) => geo.top + i * geo.row + geo.row / 2;

  function drawHead() {
    const t0 = performance.now();
    ctx.clearRect(0, 0, geo.width, geo.height);
    const l = state.layer, heads = [...state.heads].sort((a, b) => a - b), f = state.focus;
    let lines = 0;
    for (const h of heads) {
      const paths = Array.from({ length: BUCKETS }, () => new Path2D());
      const used = new Array(BUCKETS).fill(false);
      const M = A[l][h];
      for (let i = 0; i < W; i++) {
        if (f && f.side === "q" && f.index !== i) continue;
        const row = M[i];
        for (let j = 0; j < W; j++) {
          if (f && f.side === "k" && f.index !== j) continue;
          const w = row[j];
          if (w < state.threshold || w <= 0) continue;
          const b = Math.min(BUCKETS - 1, Math.floor(w * BUCKETS));
          paths[b].moveTo(geo.left + 4, rowY(i));
          paths[b].lineTo(geo.right - 4, rowY(j));
          used[b] = true;
          lines++;
        }
      }
      ctx.strokeStyle = headColour(h);
      for (let b = 0; b < BUCKETS; b++) {
        if (!used[b]) continue;
        ctx.globalAlpha = Math.min(1, 0.1 + (b + 0.5) / BUCKETS) * (f ? 1 : 0.85);
        ctx.lineWidth = 0.8 + (2.6 * b) / (BUCKETS - 1);
        ctx.stroke(paths[b]);
      }
    }
    ctx.globalAlpha = 1;
    if (!lines) {
      ctx.font = "13px system-ui, sans-serif";
      ctx.fillStyle = "#59636e";
      ctx.textAlign = "center";
      const why = heads.length ? `no weight reaches ${state.threshold.toFixed(2)}: lower the threshold` : "no head selected";
      ctx.fillText(why, (geo.left + geo.right) / 2, geo.top - 6);
    }
    // weights of the focused word, averaged over the selected heads, shown on the other side
    let shown = null;
    if (f && heads.length) {
      shown = new Float64Array(W);
      for (const h of heads) for (let k = 0; k < W; k++) {
        shown[k] += f.side === "q" ? A[l][h][f.index][k] : A[l][h][k][f.index];
      }
      for (let k = 0; k < W; k++) shown[k] /= heads.length;
    }
    ctx.font = "600 12px system-ui, sans-serif";
    ctx.fillStyle = "#59636e";
    ctx.textAlign = "right";
    ctx.fillText("attending word", geo.left - 8, 14);
    ctx.textAlign = "left";
    ctx.fillText("attended word", geo.right + 8, 14);
    ctx.textBaseline = "middle";
    for (let i = 0; i < W; i++) {
      const y = rowY(i), text = label(i);
      const qFocus = f && f.side === "q" && f.index === i, kFocus = f && f.side === "k" && f.index === i;
      ctx.font = qFocus ? "700 " + FONT : FONT;
      const leftWidth = ctx.measureText(text).width;
      ctx.font = kFocus ? "700 " + FONT : FONT;
      const rightWidth = ctx.measureText(text).width;
      const value = shown && shown[i] >= 0.005 ? shown[i] : null;
      if (value !== null) {  // shade the words the focused word looks at (or is looked at from) by weight
        ctx.fillStyle = `rgba(9, 105, 218, ${(0.08 + 0.6 * Math.min(1, value)).toFixed(3)})`;
        if (f.side === "q") ctx.fillRect(geo.right + 4, y - geo.row / 2 + 1, rightWidth + 8, geo.row - 2);
        else ctx.fillRect(geo.left - 12 - leftWidth, y - geo.row / 2 + 1, leftWidth + 8, geo.row - 2);
      }
      ctx.fillStyle = special[i] ? "#8c959f" : "#1f2328";
      ctx.font = qFocus ? "700 " + FONT : FONT;
      ctx.textAlign = "right";
      ctx.fillText(text, geo.left - 8, y);
      ctx.font = kFocus ? "700 " + FONT : FONT;
      ctx.textAlign = "left";
      ctx.fillText(text, geo.right + 8, y);
      if (value !== null) {
        ctx.font = "11px system-ui, sans-serif";
        ctx.fillStyle = "#0969da";
        if (f.side === "q") { ctx.textAlign = "left"; ctx.fillText(value.toFixed(2), geo.right + 14 + rightWidth, y); }
        else { ctx.textAlign = "right"; ctx.fillText(value.toFixed(2), geo.left - 14 - leftWidth, y); }
      }
    }
    ctx.textBaseline = "alphabetic";
    window.mealwatchView = { layer: l, heads, lines, threshold: state.threshold,
      focus: f ? { side: f.side, index: f.index } : null, words: words.map((_, i) => label(i)),
      geometry: { top: geo.top, row: geo.row, left: geo.left, right: geo.right },
      ms: Math.round(performance.now() - t0) };
  }
  function hit(event) {
    const r = canvas.getBoundingClientRect();
    const x = event.clientX - r.left, y = event.clientY - r.top;
    const i = Math.floor((y - geo.top) / geo.row);
    if (i < 0 || i >= W) return null;
    if (x <= geo.left + 2) return { side: "q", index: i };
    if (x >= geo.right - 2) return { side: "k", index: i };
    return null;
  }
  const same = (a, b) => (a === null && b === null) || (a && b && a.side === b.side && a.index === b.index);
  canvas.addEventListener("mousemove", (e) => {
    if (state.pinned) return;
    const f = hit(e);
    if (!same(f, state.focus)) { state.focus = f; drawHead(); }
  });
  canvas.addEventListener("mouseleave", () => { if (!state.pinned && state.focus) { state.focus = null; drawHead(); } });
  canvas.addEventListener("click", (e) => {
    const f = hit(e);
    if (state.pinned && same(f, state.focus)) { state.pinned = false; state.focus = null; }
    else if (f) { state.pinned = true; state.focus = f; }
    drawHead();
  });

  // ---- model view ---------------------------------------------------------------------
  const thumbs = [];
  function buildModel() {
    const size = Math.max(40, Math.min(84, Math.floor(1000 / H) - 6));
    const table = document.createElement("table");
    const head = table.insertRow();
    head.appendChild(document.createElement("th"));
    for (let h = 0; h < H; h++) {
      const th = document.createElement("th");
      th.textContent = `head ${h}`;
      head.appendChild(th);
    }
    const tile = document.createElement("canvas");
    tile.width = W; tile.height = W;
    const tctx = tile.getContext("2d");
    const image = tctx.createImageData(W, W);
    for (let l = 0; l < L; l++) {
      const tr = table.insertRow();
      const th = document.createElement("th");
      th.textContent = `layer ${l}`;
      tr.appendChild(th);
      for (let h = 0; h < H; h++) {
        const M = A[l][h], px = image.data;
        for (let i = 0; i < W; i++) for (let j = 0; j < W; j++) {
          const s = Math.sqrt(Math.max(0, Math.min(1, M[i][j]))), o = (i * W + j) * 4;
          px[o] = 255 - 246 * s; px[o + 1] = 255 - 150 * s; px[o + 2] = 255 - 37 * s; px[o + 3] = 255;
        }
        tctx.putImageData(image, 0, 0);
        const c = document.createElement("canvas");
        c.width = size; c.height = size;
        c.title = `layer ${l}, head ${h}`;
        c.dataset.layer = `${l}`; c.dataset.head = `${h}`;
        const cc = c.getContext("2d");
        cc.imageSmoothingEnabled = W > size;
        cc.drawImage(tile, 0, 0, size, size);
        c.addEventListener("click", () => {
          state.layer = l; state.heads = new Set([h]); state.focus = null; state.pinned = false;
          showView("head");
          redraw();
        });
        tr.insertCell().appendChild(c);
        thumbs.push(c);
      }
    }
    $("model-grid").appendChild(table);
  }
  function markThumbs() {
    for (const c of thumbs) c.classList.toggle("current", +c.dataset.layer === state.layer && state.heads.has(+c.dataset.head));
  }
  function showView(name) {
    $("head-view").hidden = name !== "head";
    $("model-view").hidden = name !== "model";
    $("tab-head").classList.toggle("active", name === "head");
    $("tab-model").classList.toggle("active", name === "model");
  }
  $("tab-head").addEventListener("click", () => showView("head"));
  $("tab-model").addEventListener("click", () => showView("model"));

  // ---- explanation --------------------------------------------------------------------
  function colourWords(box, ws, values, pos, neg, fmt) {
    box.replaceChildren();
    const scale = Math.max(1e-12, ...values.map(Math.abs));
    ws.forEach((w, i) => {
      const v = values[i], t = Math.min(1, Math.abs(v) / scale);
      const span = document.createElement("span");
      span.textContent = w;
      if (v !== 0) span.style.background = `rgba(${v >= 0 ? pos : neg}, ${(0.08 + 0.72 * t).toFixed(3)})`;
      if (t > 0.65) span.style.color = "#fff";
      span.title = fmt(v, i);
      box.appendChild(span);
    });
  }
  function buildExplanation(e) {
    $("explanation").hidden = false;
    $("expl-labels").textContent = e.predicted.map((p) => `${p} (${e.probabilities[p].toFixed(3)})`).join(", ");
    const css = getComputedStyle(document.documentElement);
    const pos = css.getPropertyValue("--pos").trim(), neg = css.getPropertyValue("--neg").trim();
    const parts = e.parts || {}, fused = Boolean(e.ngram_weight) && Boolean(parts.ngram);
    const notices = e.notices || [];
    const unreadable = notices.includes("unreadable");
    $("expl-warning").hidden = !unreadable;
    $("expl-warning").textContent = unreadable ? "Most of this text's words are unreadable to the model's vocabulary "
      + "(unknown, or cut into single letters): its labels are a guess and the colours would mean nothing, so none "
      + "are shown. Read the text yourself." : "";
    const tabs = $("label-tabs");
    const show = (label) => {
      for (const b of tabs.children) b.classList.toggle("active", b.dataset.label === label);
      const v = e.attributions[label], sum = v.reduce((a, b) => a + b, 0);
      const how = fused ? `the encoder's part (integrated gradients, ${e.steps} steps, weight `
        + `${(1 - e.ngram_weight).toFixed(2)}) plus the n-gram channel's part (exact, weight ${e.ngram_weight.toFixed(2)})`
        : `integrated gradients over ${e.steps} steps`;
      const change = e.probabilities[label] - e.baseline_probabilities[label];
      let caption = `Each word's share of P(${label}) as the model decides it: ${how}. `
        + `Σ shares ${sum.toFixed(4)} = P(text) ${e.probabilities[label].toFixed(4)} − P(baseline) `
        + `${e.baseline_probabilities[label].toFixed(4)} (${change >= 0 ? "+" : ""}${change.toFixed(4)}), `
        + `left over ${e.delta[label].toFixed(5)}. Hover a word for its share and its parts.`;
      if (Math.abs(e.delta[label]) > Math.max(0.1 * Math.abs(change), 0.01)) {
        caption += ` Warning: the shares miss the decision by ${Math.abs(e.delta[label]).toFixed(4)} `
          + `(${Math.round(100 * Math.abs(e.delta[label]) / Math.max(Math.abs(change), 1e-9))} % of it): read them as rough.`;
      }
      $("ig-caption").textContent = caption;
      const fmt = (x, i) => {
        const own = `${x >= 0 ? "+" : ""}${x.toFixed(4)}`;
        if (!fused) return own;
        const a = parts.encoder[label][i], b = parts.ngram[label][i];
        return `${own} (encoder ${a >= 0 ? "+" : ""}${a.toFixed(4)}, n-gram ${b >= 0 ? "+" : ""}${b.toFixed(4)})`;
      };
      colourWords($("ig-words"), e.words, unreadable ? v.map(() => 0) : v, pos, neg, (x, i) => fmt(v[i], i));
      const order = v.map((_, i) => i).sort((a, b) => v[b] - v[a]).slice(0, 6);
      const strongest = $("ig-strongest");
      strongest.replaceChildren(unreadable ? "" : "Pushing hardest toward it: ");
      if (!unreadable) order.forEach((i, n) => {
        const b = document.createElement("b");
        b.textContent = e.words[i];
        strongest.append(...(n ? [" · "] : []), b, ` ${v[i] >= 0 ? "+" : "−"}${Math.abs(v[i]).toFixed(3)}`);
      });
    };
    for (const label of e.predicted) {
      const b = document.createElement("button");
      b.type = "button"; b.textContent = label; b.dataset.label = label;
      b.addEventListener("click", () => show(label));
      tabs.appendChild(b);
    }
    show(e.predicted[0]);
    $("rollout-caption").textContent = `Share of the pooled vector each word feeds under attention rollout `
      + `(${e.rollout_row}; ${e.rollout_special.toFixed(2)} rests on [CLS]/[SEP]) — what the sentence vector draws `
      + `on, the same for every label: not why a label was chosen.`;
    colourWords($("rollout-words"), e.words, e.rollout, "130, 80, 223", "130, 80, 223", (x) => x.toFixed(4));
    $("expl-note").textContent = `Baseline: ${e.baseline}.`;
  }

  function redraw() {
    layerSelect.value = `${state.layer}`;
    headBoxes.forEach((box, h) => { box.checked = state.heads.has(h); box.parentElement.classList.toggle("off", !box.checked); });
    $("threshold-value").textContent = state.threshold.toFixed(2);
    drawHead();
    markThumbs();
  }

  layout();
  buildModel();
  if (data.explanation) buildExplanation(data.explanation);
  redraw();
})();
