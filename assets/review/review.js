// The review page of one run (served by mnemoforge/review_server.py). Two virtualised lists (shots,
// candidate items): only the rows in view (and a few around them) exist in the DOM, every row has
// the same height, media load lazily. Decisions are POSTed as they are made.
"use strict";

const ROW = {shots: 300, items: 340};  // px per row (fixed: the list is positioned by arithmetic)
const BUFFER = 3;  // rows rendered above and below the viewport
const MAX_EVIDENCE = 6;  // evidence entries drawn per item (the rest are counted)
const S = {
  data: null, list: "shots", view: [], cur: 0, rows: new Map(), draft: new Map(),
  tabs: {shots: {cur: 0, top: 0, filters: {}}, items: {cur: 0, top: 0, filters: {}}},
};
const $ = (id) => document.getElementById(id);
const FILTERS = ["status", "person", "place", "day", "reason", "text"];

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "text") e.textContent = v; else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of kids) if (c !== null && c !== undefined) e.append(c);
  return e;
}

const kindOf = (list) => (list === "shots" ? "shot" : "item");
const keyOf = (list, id) => kindOf(list) + ":" + id;
const rowsOf = (list) => S.data[list];
const personName = (id) => (S.people.get(id) || id);
const placeName = (id) => (S.places.get(id) || id);

function draftOf(key) {
  if (!S.draft.has(key)) {
    const d = S.data.decisions[key] || {};
    S.draft.set(key, {reasons: new Set(d.reasons || []), note: d.note || ""});
  }
  return S.draft.get(key);
}

// ---------------------------------------------------------------- filters

function fillSelect(id, values, label) {
  const sel = $(id);
  for (const v of values) sel.append(el("option", {value: v, text: label ? label(v) : v}));
}

function readFilters() {
  const f = {};
  for (const name of FILTERS) f[name] = $("f-" + name).value.trim();
  return f;
}

function writeFilters(f) {
  for (const name of FILTERS) $("f-" + name).value = f[name] || "";
}

function matches(list, x, f) {
  const d = S.data.decisions[keyOf(list, x.id)];
  if (f.status === "unreviewed" && d) return false;
  if (f.status && f.status !== "unreviewed" && (!d || d.decision !== f.status)) return false;
  if (f.person && !x.people.includes(f.person)) return false;
  if (f.place && (list === "shots" ? x.place !== f.place : !x.places.includes(f.place))) return false;
  if (f.day && x.day !== f.day) return false;
  if (f.reason && !x.reasons.includes(f.reason)) return false;
  if (f.text) {
    const t = f.text.toLowerCase();
    const hay = list === "shots"
      ? [x.id, x.clip, ...x.lines.map((l) => l.text)].join(" ")
      : [x.id, x.question, x.answer, x.category].join(" ");
    if (!hay.toLowerCase().includes(t)) return false;
  }
  return true;
}

function applyFilters(keepId) {
  const f = readFilters();
  S.tabs[S.list].filters = f;
  const rows = rowsOf(S.list);
  S.view = [];
  for (let i = 0; i < rows.length; i++) if (matches(S.list, rows[i], f)) S.view.push(i);
  const at = keepId ? S.view.findIndex((i) => rows[i].id === keepId) : -1;
  S.cur = at >= 0 ? at : 0;
  relayout(true);
}

// ---------------------------------------------------------------- rows

function controls(list, x) {
  const key = keyOf(list, x.id), draft = draftOf(key), saved = S.data.decisions[key];
  const tags = el("div", {class: "tags"});
  S.data.tags.forEach((t, n) => {
    const cb = el("input", {type: "checkbox", value: t, "data-tag": t, checked: draft.reasons.has(t)});
    cb.onchange = () => { if (cb.checked) draft.reasons.add(t); else draft.reasons.delete(t); };
    tags.append(el("label", {}, cb, " " + (n + 1) + " " + t));
  });
  const note = el("textarea", {class: "note", placeholder: "note (e)"});
  note.value = draft.note;
  note.oninput = () => { draft.note = note.value; };
  const pass = el("button", {class: "pass", text: "Pass (a)"});
  const excl = el("button", {class: "exclude", text: "Exclude (x)"});
  pass.onclick = () => decide(list, x.id, "pass");
  excl.onclick = () => decide(list, x.id, "exclude");
  const again = list === "shots" ? el("button", {class: "rerender", text: "Re-render (r)"}) : null;
  if (again) again.onclick = () => decide(list, x.id, "rerender");
  const status = el("span", {class: "status", text: saved ? "saved: " + saved.decision : "not reviewed"});
  return el("div", {class: "controls"}, tags, note, el("div", {class: "buttons"}, pass, excl, again, status));
}

function shotRow(s) {
  const media = el("div", {class: "media"});
  if (s.still) media.append(el("img", {class: "still", src: "/" + s.still, loading: "lazy", alt: "still " + s.id}));
  if (s.clip_media) {
    const span = "#t=" + s.start_s + "," + (s.start_s + s.duration_s);
    media.append(el("video", {src: "/" + s.clip_media + span, controls: true, preload: "none"}));
  }
  const speech = el("ol", {class: "lines"});
  for (const l of s.lines) {
    const at = l.at === null || l.at === undefined ? "" : " [" + l.at.toFixed(1) + " s]";
    speech.append(el("li", {text: l.speaker + ": " + l.text + at}));
  }
  if (!s.lines.length) speech.append(el("li", {class: "quiet", text: "(no speech)"}));
  media.append(speech);
  const anchors = el("div", {class: "anchors"});
  for (const p of s.people) {
    const src = S.data.anchors[p];
    anchors.append(el("figure", {},
      src ? el("img", {src: "/" + src, loading: "lazy", alt: "anchor " + p}) : el("div", {class: "noanchor"}),
      el("figcaption", {text: personName(p)})));
  }
  const p = s.plan;
  const info = el("div", {class: "info"},
    el("div", {class: "title"}, el("b", {text: s.id}),
      el("span", {text: " clip " + s.clip + " · " + s.day + " · " + (p.place || "")})),
    el("div", {class: "plan", text: "plan: " + [p.composition, p.camera, p.time_of_day].join(", ") +
      " · people: " + (p.visible.join(", ") || "none") + " · props: " + (p.props.join(", ") || "none")}),
    p.blocking ? el("div", {class: "plan", text: "blocking: " + p.blocking}) : null,
    s.generated ? el("div", {class: "plan"}, el("a", {href: "/" + s.generated, target: "_blank",
      text: "generated clip (no speech: speech is dubbed into the album clip)"})) : null,
    s.reasons.length ? el("div", {class: "flags", text: s.reasons.join("; ")}) : null,
    controls("shots", s));
  return [media, anchors, info];
}

function itemRow(q) {
  const opts = el("ol", {type: "A", class: "opts"});
  for (const o of q.options || []) opts.append(el("li", {text: o, class: o === q.answer ? "key" : null}));
  const ev = el("div", {class: "ev"});
  for (const e of q.evidence.slice(0, MAX_EVIDENCE)) {
    const row = el("div", {}, el("span", {text: e.id + " (" + e.kind + ") " + (e.content || "")}));
    for (const m of e.media) {
      if (m.endsWith(".png") || m.endsWith(".jpg")) row.append(el("img", {src: "/" + m, loading: "lazy", alt: e.id}));
      else if (m.endsWith(".wav")) row.append(el("audio", {src: "/" + m, controls: true, preload: "none"}));
    }
    ev.append(row);
  }
  if (q.evidence.length > MAX_EVIDENCE) ev.append(el("div", {text: "+" + (q.evidence.length - MAX_EVIDENCE) + " more"}));
  const who = q.people.map(personName).join(", ");
  const info = el("div", {class: "info"},
    el("div", {class: "title"}, el("b", {text: q.category}), el("span", {text: " " + q.id + " · " + q.day +
      (who ? " · " + who : "")})),
    el("div", {class: "question", text: q.question}), opts,
    el("div", {class: "answer", text: "answer: " + q.answer}),
    q.gates.length ? el("div", {class: "gates", text: q.gates.map((g) => "rejected by " + g).join("; ")}) : null,
    controls("items", q));
  return [info, ev];
}

function makeRow(v) {
  const x = rowsOf(S.list)[S.view[v]], key = keyOf(S.list, x.id);
  const d = S.data.decisions[key];
  const card = el("div", {class: "card " + S.list + (d ? " " + d.decision : "") + (v === S.cur ? " current" : ""),
    "data-kind": kindOf(S.list), "data-id": x.id, "data-pos": v,
    style: "top:" + v * ROW[S.list] + "px;height:" + (ROW[S.list] - 10) + "px"});
  for (const part of (S.list === "shots" ? shotRow(x) : itemRow(x))) card.append(part);
  card.addEventListener("mousedown", () => setCurrent(v, false));
  return card;
}

function render() {
  const list = $("list"), h = ROW[S.list];
  const first = Math.max(0, Math.floor(list.scrollTop / h) - BUFFER);
  const last = Math.min(S.view.length - 1, Math.ceil((list.scrollTop + list.clientHeight) / h) + BUFFER);
  for (const [v, card] of S.rows) {
    if (v < first || v > last) { card.remove(); S.rows.delete(v); }
  }
  const spacer = $("spacer");
  for (let v = first; v <= last; v++) {
    if (!S.rows.has(v)) { const card = makeRow(v); S.rows.set(v, card); spacer.append(card); }
  }
}

function relayout(toCurrent) {
  for (const card of S.rows.values()) card.remove();
  S.rows.clear();
  $("spacer").style.height = S.view.length * ROW[S.list] + "px";
  if (toCurrent) ensureVisible(S.cur);
  render();
  $("count").textContent = S.view.length + " of " + rowsOf(S.list).length + " " + S.list + " shown";
}

let pending = false;
function onScroll() {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => { pending = false; render(); });
}

function ensureVisible(v) {
  const list = $("list"), h = ROW[S.list], top = v * h;
  if (top < list.scrollTop) list.scrollTop = top;
  else if (top + h > list.scrollTop + list.clientHeight) list.scrollTop = top + h - list.clientHeight;
}

function setCurrent(v, scroll = true) {
  if (!S.view.length) return;
  v = Math.max(0, Math.min(S.view.length - 1, v));
  const old = S.rows.get(S.cur);
  if (old) old.classList.remove("current");
  S.cur = v;
  if (scroll) ensureVisible(v);
  render();
  const card = S.rows.get(v);
  if (card) card.classList.add("current");
}

function currentRow() {
  return S.view.length ? rowsOf(S.list)[S.view[S.cur]] : null;
}

// ---------------------------------------------------------------- decisions

async function decide(list, id, decision) {
  const key = keyOf(list, id), draft = draftOf(key);
  const body = {kind: kindOf(list), id, decision, reasons: [...draft.reasons].sort(), note: draft.note};
  const card = document.querySelector(`.card[data-kind="${kindOf(list)}"][data-id="${CSS.escape(id)}"]`);
  const status = card && card.querySelector(".status");
  if (status) status.textContent = "saving…";
  let out, ok = false;
  try {
    const r = await fetch("/api/decision", {method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify(body)});
    out = await r.json();
    ok = r.ok;
  } catch (e) {
    out = {error: String(e)};
  }
  const now = document.querySelector(`.card[data-kind="${kindOf(list)}"][data-id="${CSS.escape(id)}"]`);
  const st = now && now.querySelector(".status");
  if (!ok) { if (st) st.textContent = "error: " + out.error; return false; }
  S.data.decisions[key] = out.decision;
  if (now) {
    now.classList.remove("pass", "exclude", "rerender");
    now.classList.add(decision);
    st.textContent = "saved: " + decision;
  }
  summary();
  return true;
}

function summary() {
  const n = {shot: 0, item: 0};
  for (const k of Object.keys(S.data.decisions)) n[k.split(":", 1)[0]] += 1;
  $("summary").textContent = "reviewed " + n.shot + " of " + S.data.shots.length + " shots, " + n.item +
    " of " + S.data.items.length + " items";
}

function nextUnreviewed() {
  const rows = rowsOf(S.list), n = S.view.length;
  for (let step = 1; step <= n; step++) {
    const v = (S.cur + step) % n;
    if (!S.data.decisions[keyOf(S.list, rows[S.view[v]].id)]) { setCurrent(v); return true; }
  }
  return false;
}

function toggleTag(n) {
  const x = currentRow();
  if (!x || n >= S.data.tags.length) return;
  const draft = draftOf(keyOf(S.list, x.id)), t = S.data.tags[n];
  if (draft.reasons.has(t)) draft.reasons.delete(t); else draft.reasons.add(t);
  const card = S.rows.get(S.cur), cb = card && card.querySelector(`input[data-tag="${t}"]`);
  if (cb) cb.checked = draft.reasons.has(t);
}

function switchTab(list) {
  if (list === S.list) return;
  S.tabs[S.list].cur = S.cur;
  S.tabs[S.list].top = $("list").scrollTop;
  S.list = list;
  for (const b of document.querySelectorAll(".tabs button")) {
    b.setAttribute("aria-selected", String(b.dataset.list === list));
  }
  writeFilters(S.tabs[list].filters);
  const rows = rowsOf(list), f = readFilters();
  S.view = [];
  for (let i = 0; i < rows.length; i++) if (matches(list, rows[i], f)) S.view.push(i);
  S.cur = Math.min(S.tabs[list].cur, Math.max(0, S.view.length - 1));
  relayout(false);
  $("list").scrollTop = S.tabs[list].top;
  setCurrent(S.cur);
}

function onKey(ev) {
  const typing = ev.target.matches("input[type=search], input[type=text], textarea, select");
  if (ev.key === "Escape") { ev.target.blur(); $("list").focus(); return; }
  if (typing || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const x = currentRow();
  const k = ev.key;
  if (k === "j" || k === "ArrowDown") setCurrent(S.cur + 1);
  else if (k === "k" || k === "ArrowUp") setCurrent(S.cur - 1);
  else if (k === "n") nextUnreviewed();
  else if ((k === "a" || k === "x" || (k === "r" && S.list === "shots")) && x) {
    const cur = S.cur, decision = {a: "pass", x: "exclude", r: "rerender"}[k];
    decide(S.list, x.id, decision).then((ok) => { if (ok && S.cur === cur) setCurrent(cur + 1); });
  } else if (k >= "1" && k <= "9") toggleTag(Number(k) - 1);
  else if (k === "t") switchTab(S.list === "shots" ? "items" : "shots");
  else if (k === "/") $("f-text").focus();
  else if (k === "e") { const c = S.rows.get(S.cur); if (c) c.querySelector("textarea").focus(); }
  else if (k === "?") $("help").hidden = !$("help").hidden;
  else return;
  ev.preventDefault();
}

// ---------------------------------------------------------------- start

(async () => {
  const t0 = performance.now();
  S.data = await (await fetch("/api/data")).json();
  S.people = new Map(S.data.people.map((p) => [p.id, p.name]));
  S.places = new Map(S.data.places.map((p) => [p.id, p.name]));
  $("run").textContent = S.data.run;
  $("tab-shots").textContent = "Shots (" + S.data.shots.length + ")";
  $("tab-items").textContent = "Items (" + S.data.items.length + ")";
  fillSelect("f-person", S.data.people.map((p) => p.id), personName);
  fillSelect("f-place", S.data.places.map((p) => p.id), placeName);
  fillSelect("f-day", S.data.days);
  fillSelect("f-reason", S.data.reasons);
  for (const name of FILTERS) {
    $("f-" + name).addEventListener(name === "text" ? "input" : "change", () => {
      const x = currentRow();
      applyFilters(x && x.id);
    });
  }
  for (const b of document.querySelectorAll(".tabs button")) b.onclick = () => switchTab(b.dataset.list);
  $("help-toggle").onclick = () => { $("help").hidden = !$("help").hidden; };
  $("list").addEventListener("scroll", onScroll, {passive: true});
  window.addEventListener("resize", onScroll);
  document.addEventListener("keydown", onKey);
  summary();
  applyFilters(null);
  $("list").focus();
  requestAnimationFrame(() => requestAnimationFrame(() => {
    window.__review = {rowsPaintedMs: performance.now(), dataMs: t0};
    document.body.setAttribute("data-ready", "1");
  }));
})();
