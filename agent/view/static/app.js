// codeagent view: the layout toggle for diffs, confirmations, the status filter, and the live
// stream of a run in progress (server-sent events carrying HTML rendered on the server).
"use strict";

function setLayout(layout) {
  document.body.classList.toggle("split", layout === "split");
  document.querySelectorAll("button.layout").forEach((b) => b.classList.toggle("on", b.dataset.layout === layout));
  try { localStorage.setItem("codeagent-view-layout", layout); } catch (e) { /* private mode */ }
}

function replacePart(id, html) {
  const old = document.getElementById(id);
  const tpl = document.createElement("template");
  tpl.innerHTML = html.trim();
  const fresh = tpl.content.firstElementChild;
  if (!fresh) return;
  if (old) {
    // keep what the reader opened
    const open = Array.from(old.querySelectorAll("details")).map((d) => d.open);
    fresh.querySelectorAll("details").forEach((d, i) => { if (open[i]) d.open = true; });
    old.replaceWith(fresh);
  } else if (id.startsWith("step-")) {
    const timeline = document.getElementById("timeline");
    const n = parseInt(id.slice(5), 10);
    const after = Array.from(timeline.children).find((el) => parseInt(el.id.slice(5), 10) > n);
    timeline.insertBefore(fresh, after || null);
  }
}

function followRun(run) {
  const url = `/runs/${encodeURIComponent(run.dataset.run)}/events?offset=${run.dataset.offset}`;
  const source = new EventSource(url);
  source.addEventListener("parts", (ev) => {
    const msg = JSON.parse(ev.data);
    run.dataset.offset = msg.offset;
    msg.parts.forEach(([id, html]) => replacePart(id, html));
    setLayout(document.body.classList.contains("split") ? "split" : "unified");
  });
  source.addEventListener("end", () => {
    source.close();
    const state = document.getElementById("live-state");
    if (state) state.remove();
    delete run.dataset.live;
  });
}

document.addEventListener("DOMContentLoaded", () => {
  let layout = "unified";
  try { layout = localStorage.getItem("codeagent-view-layout") || "unified"; } catch (e) { /* private mode */ }
  setLayout(layout);
  document.addEventListener("click", (ev) => {
    const b = ev.target.closest("button.layout");
    if (b) setLayout(b.dataset.layout);
  });
  document.addEventListener("submit", (ev) => {
    const msg = ev.target.dataset.confirm;
    if (msg && !window.confirm(msg)) ev.preventDefault();
  });
  document.querySelectorAll("select[data-autosubmit]").forEach((s) => s.addEventListener("change", () => s.form.submit()));
  const run = document.getElementById("run");
  if (run && run.dataset.live !== undefined) followRun(run);
});
