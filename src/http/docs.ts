// The /docs reference page: one self-contained HTML document (no CDN) that renders /openapi.json in the browser.

export const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>virtual-numbers API reference</title>
<style>
  :root { --fg:#1d2330; --muted:#5b6476; --line:#e3e6ec; --bg:#f7f8fa; --accent:#2f5fd0; }
  * { box-sizing: border-box; }
  body { margin:0; font:15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color:var(--fg); display:flex; }
  nav { width:300px; height:100vh; overflow:auto; position:sticky; top:0; background:var(--bg); border-right:1px solid var(--line); padding:16px; }
  nav h1 { font-size:17px; margin:0 0 4px; }
  nav p { margin:0 0 12px; color:var(--muted); font-size:13px; }
  nav h2 { font-size:12px; text-transform:uppercase; letter-spacing:.06em; color:var(--muted); margin:16px 0 4px; }
  nav a { display:flex; align-items:flex-start; padding:3px 0; color:var(--fg); text-decoration:none; font-size:13px; }
  nav a .m { flex:none; }
  nav a:hover { color:var(--accent); }
  main { flex:1; padding:24px 40px; max-width:1000px; }
  section.op { border-bottom:1px solid var(--line); padding:18px 0 26px; }
  .m { display:inline-block; min-width:62px; text-align:center; font:600 12px/20px ui-monospace, monospace; border-radius:4px; color:#fff; margin-right:8px; }
  .get{background:#2f8f5b}.post{background:#2f5fd0}.put{background:#b7791f}.patch{background:#8a4fc7}.delete{background:#c53b3b}
  code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size:13px; }
  pre { background:var(--bg); border:1px solid var(--line); padding:10px; overflow:auto; border-radius:6px; }
  table { border-collapse:collapse; width:100%; margin:6px 0 12px; font-size:13px; }
  th, td { text-align:left; border-bottom:1px solid var(--line); padding:5px 8px; vertical-align:top; }
  th { color:var(--muted); font-weight:600; }
  h3 { font-size:14px; margin:14px 0 4px; }
  .req { color:#c53b3b; font-size:11px; margin-left:4px; }
  .muted { color:var(--muted); }
</style>
</head>
<body>
<nav id="nav"><h1>virtual-numbers</h1><p>Loading…</p></nav>
<main id="main"></main>
<script>
(async function () {
  const spec = await (await fetch("/openapi.json")).json();
  const nav = document.getElementById("nav");
  const main = document.getElementById("main");
  const esc = (s) => String(s ?? "").replace(/[&<>"]/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[ch]);
  const resolve = (s) => (s && s.$ref ? spec.components.schemas[s.$ref.split("/").pop()] : s) || {};
  const typeOf = (raw) => {
    const s = resolve(raw);
    if (raw && raw.$ref) return raw.$ref.split("/").pop();
    if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
    if (s.anyOf || s.oneOf) return (s.anyOf || s.oneOf).map(typeOf).join(" | ");
    if (s.type === "array") return typeOf(s.items) + "[]";
    const t = Array.isArray(s.type) ? s.type.join(" | ") : s.type || "object";
    return s.format ? t + " (" + s.format + ")" : t;
  };
  const limits = (s) => {
    const out = [];
    if (s.minLength !== undefined) out.push("min length " + s.minLength);
    if (s.maxLength !== undefined) out.push("max length " + s.maxLength);
    if (s.minimum !== undefined) out.push("min " + s.minimum);
    if (s.maximum !== undefined) out.push("max " + s.maximum);
    if (s.pattern) out.push("pattern " + s.pattern);
    if (s.default !== undefined) out.push("default " + JSON.stringify(s.default));
    return out.join(", ");
  };
  const fields = (raw, depth) => {
    const s = resolve(raw);
    if (!s.properties || depth > 2) return "";
    const required = new Set(s.required || []);
    const rows = Object.entries(s.properties).map(([name, prop]) => {
      const p = resolve(prop);
      return "<tr><td><code>" + esc(name) + "</code>" + (required.has(name) ? '<span class="req">required</span>' : "") +
        "</td><td>" + esc(typeOf(prop)) + "</td><td>" + esc(p.description || "") + " <span class=muted>" + esc(limits(p)) + "</span>" +
        fields(prop, depth + 1) + (p.type === "array" ? fields(p.items, depth + 1) : "") + "</td></tr>";
    });
    return "<table><tr><th>Field</th><th>Type</th><th>Notes</th></tr>" + rows.join("") + "</table>";
  };
  const groups = {};
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const tag = (op.tags && op.tags[0]) || "Service";
      (groups[tag] = groups[tag] || []).push({ path, method, op });
    }
  }
  let navHtml = "<h1>" + esc(spec.info.title) + "</h1><p>" + esc(spec.info.version) + " · <a href=\\"/openapi.json\\" style=\\"display:inline\\">openapi.json</a></p>";
  let mainHtml = "<h1>" + esc(spec.info.title) + "</h1><p>" + esc(spec.info.description) + "</p>";
  for (const [tag, ops] of Object.entries(groups)) {
    navHtml += "<h2>" + esc(tag) + "</h2>";
    mainHtml += "<h2>" + esc(tag) + "</h2>";
    for (const { path, method, op } of ops) {
      const id = method + path.replace(/[^a-zA-Z0-9]+/g, "-");
      navHtml += '<a href="#' + id + '"><span class="m ' + method + '">' + method.toUpperCase() + "</span>" + esc(op.summary || path) + "</a>";
      let html = '<section class="op" id="' + id + '"><div><span class="m ' + method + '">' + method.toUpperCase() + "</span><code>" + esc(path) + "</code></div>";
      html += "<h3>" + esc(op.summary || "") + "</h3><p>" + esc(op.description || "") + "</p>";
      if (op.security && op.security.length) html += '<p class="muted">Auth: ' + esc(op.security.map((s) => Object.keys(s)[0]).join(" or ")) + "</p>";
      if (op.parameters && op.parameters.length) {
        html += "<h3>Parameters</h3><table><tr><th>Name</th><th>In</th><th>Type</th><th>Notes</th></tr>" + op.parameters.map((p) =>
          "<tr><td><code>" + esc(p.name) + "</code>" + (p.required ? '<span class="req">required</span>' : "") + "</td><td>" + esc(p.in) +
          "</td><td>" + esc(typeOf(p.schema)) + "</td><td>" + esc(p.description || "") + " <span class=muted>" + esc(limits(resolve(p.schema))) + "</span></td></tr>").join("") + "</table>";
      }
      if (op.requestBody) {
        for (const [type, media] of Object.entries(op.requestBody.content || {})) {
          html += "<h3>Request body <span class=muted>(" + esc(type) + ")</span></h3>" + fields(media.schema, 0);
        }
      }
      html += "<h3>Responses</h3><table><tr><th>Status</th><th>Description</th></tr>";
      for (const [status, res] of Object.entries(op.responses || {})) {
        const media = res.content && Object.values(res.content)[0];
        html += "<tr><td><code>" + esc(status) + "</code></td><td>" + esc(res.description) + (media ? " <span class=muted>" + esc(typeOf(media.schema)) + "</span>" : "") + "</td></tr>";
      }
      mainHtml += html + "</table></section>";
    }
  }
  mainHtml += "<h2>Schemas</h2>" + Object.entries(spec.components.schemas).map(([name, s]) =>
    '<section class="op" id="schema-' + esc(name) + '"><h3>' + esc(name) + "</h3>" + (fields(s, 0) || "<pre>" + esc(JSON.stringify(s, null, 2)) + "</pre>") + "</section>").join("");
  nav.innerHTML = navHtml;
  main.innerHTML = mainHtml;
})();
</script>
</body>
</html>
`;
