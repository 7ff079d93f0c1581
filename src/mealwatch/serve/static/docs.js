// The API's endpoints from /openapi.json, as plain text (textContent only); no library, nothing from another site.
"use strict";

function node(tag, cls, text) {
  const n = document.createElement(tag);
  if (cls) n.className = cls;
  if (text !== undefined) n.textContent = text;
  return n;
}

function resolve(spec, schema) {
  let s = schema || {};
  for (let depth = 0; s.$ref && depth < 10; depth++) s = spec.components.schemas[s.$ref.split("/").pop()] || {};
  return s;
}

function typeOf(spec, schema) {
  const s = resolve(spec, schema);
  if (s.anyOf) return s.anyOf.map((x) => typeOf(spec, x)).join(" or ");
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.type === "array") return `list of ${typeOf(spec, s.items)}`;
  if (s.title && s.properties) return s.title;
  return s.type || "any";
}

function fields(spec, schema) {
  const s = resolve(spec, schema);
  const list = node("ul", "fields");
  for (const [name, prop] of Object.entries(s.properties || {})) {
    const required = (s.required || []).includes(name) ? " (required)" : "";
    const p = resolve(spec, prop);
    const limits = ["minimum", "maximum"].filter((k) => p[k] !== undefined).map((k) => `${k} ${p[k]}`).join(", ");
    const line = `${name}: ${typeOf(spec, prop)}${required}${limits ? ` [${limits}]` : ""}` +
      `${p.default !== undefined ? ` = ${JSON.stringify(p.default)}` : ""}${p.description ? ` — ${p.description}` : ""}`;
    list.append(node("li", "", line));
  }
  return list;
}

async function main() {
  const spec = await (await fetch("/openapi.json")).json();
  const target = document.getElementById("endpoints");
  for (const [path, methods] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const card = node("section", "card wide");
      card.append(node("h2", "", `${method.toUpperCase()} ${path}`));
      if (op.summary) card.append(node("p", "muted", op.summary));
      if (op.description) card.append(node("p", "", op.description));
      const params = op.parameters || [];
      if (params.length) {
        card.append(node("h3", "", "parameters"));
        const list = node("ul", "fields");
        for (const p of params) {
          list.append(node("li", "", `${p.name} (${p.in}${p.required ? ", required" : ""}): ${typeOf(spec, p.schema)}` +
            `${p.description ? ` — ${p.description}` : ""}`));
        }
        card.append(list);
      }
      const content = (op.requestBody || {}).content || {};
      for (const [type, body] of Object.entries(content)) {
        card.append(node("h3", "", `body (${type})`));
        card.append(fields(spec, body.schema));
      }
      target.append(card);
    }
  }
}

main().catch((error) => {
  const box = document.getElementById("docs-error");
  box.hidden = false;
  box.textContent = `the API description could not be read: ${error.message}`;
});
