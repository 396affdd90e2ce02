"""The review page served by ``review_server`` (one self-contained HTML file, no external assets)."""

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>mnemoforge review</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:0 1.5em 3em;color:#222}
h1{font-size:1.3em} h2{font-size:1.1em;margin-top:2em;border-bottom:1px solid #ccc}
.card{border:1px solid #ccc;border-radius:6px;padding:.7em;margin:.7em 0;display:grid;
 grid-template-columns:minmax(200px,340px) 1fr;gap:1em}
.card.pass{border-color:#2a8a2a;background:#f3fbf3} .card.exclude{border-color:#b22;background:#fdf3f3}
.card img,.card video{max-width:100%;display:block;margin-bottom:.3em}
.plan,.ev{font-size:.9em;color:#444} .tags label{margin-right:.6em;white-space:nowrap}
textarea{width:100%;height:2.5em} .status{font-weight:bold;margin-left:.6em}
.opts li.key{font-weight:bold} .gates{color:#a40;font-size:.85em}
#summary{position:sticky;top:0;background:#fff;padding:.4em 0;border-bottom:1px solid #ddd}
</style></head>
<body>
<h1>Review <span id="run"></span></h1>
<div id="summary">loading…</div>
<h2>Shots</h2><div id="shots"></div>
<h2>Candidate items</h2><div id="items"></div>
<script>
let DATA = null;
const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") e.textContent = v; else e.setAttribute(k, v);
  }
  for (const c of kids) if (c) e.append(c);
  return e;
};
function controls(kind, id) {
  const key = kind + ":" + id, d = DATA.decisions[key] || {};
  const box = el("div", {class: "controls"});
  const tags = el("div", {class: "tags"});
  for (const t of DATA.tags) {
    const cb = el("input", {type: "checkbox", value: t, "data-tag": t});
    if ((d.reasons || []).includes(t)) cb.checked = true;
    tags.append(el("label", {}, cb, document.createTextNode(" " + t)));
  }
  const note = el("textarea", {placeholder: "note", class: "note"});
  note.value = d.note || "";
  const status = el("span", {class: "status", text: d.decision ? "saved: " + d.decision : "not reviewed"});
  const send = async (decision) => {
    const reasons = [...tags.querySelectorAll("input:checked")].map(c => c.value);
    const r = await fetch("/api/decision", {method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify({kind, id, decision, reasons, note: note.value})});
    const out = await r.json();
    if (!r.ok) { status.textContent = "error: " + out.error; return; }
    DATA.decisions[key] = out.decision;
    status.textContent = "saved: " + decision;
    box.closest(".card").className = "card " + decision;
    summary();
  };
  const pass = el("button", {class: "pass", text: "Pass"}); pass.onclick = () => send("pass");
  const excl = el("button", {class: "exclude", text: "Exclude"}); excl.onclick = () => send("exclude");
  box.append(tags, note, pass, excl, status);
  return box;
}
function shotCard(s) {
  const d = DATA.decisions["shot:" + s.id];
  const media = el("div");
  if (s.still) media.append(el("img", {src: "/" + s.still, alt: "still " + s.id}));
  const clip = s.generated || s.clip_media;
  if (clip) {
    const frag = s.generated ? "" : "#t=" + s.start_s + "," + (s.start_s + s.duration_s);
    media.append(el("video", {src: "/" + clip + frag, controls: "", preload: "none"}));
  }
  const p = s.plan;
  const plan = el("div", {class: "plan"},
    el("div", {text: "plan: " + [p.composition, p.camera, p.time_of_day].join(", ") + " at " + p.place}),
    el("div", {text: "people: " + (p.visible.join(", ") || "none") + "; props: " +
      (p.props.join(", ") || "none")}),
    p.blocking ? el("div", {text: "blocking: " + p.blocking}) : null);
  const lines = el("ul", {class: "lines"});
  for (const l of s.lines) lines.append(el("li", {text: l.speaker + ": " + l.text}));
  return el("div", {class: "card" + (d ? " " + d.decision : ""), "data-kind": "shot", "data-id": s.id},
    media, el("div", {}, el("b", {text: s.id + " (clip " + s.clip + ")"}), plan, lines,
      controls("shot", s.id)));
}
function itemCard(q) {
  const d = DATA.decisions["item:" + q.id];
  const opts = el("ol", {type: "A", class: "opts"});
  for (const o of q.options || []) opts.append(el("li", {text: o, class: o === q.answer ? "key" : ""}));
  const ev = el("div", {class: "ev"});
  for (const e of q.evidence) {
    const row = el("div", {}, el("span", {text: e.id + " (" + e.kind + ") " + (e.content || "")}));
    for (const m of e.media) {
      if (m.endsWith(".png")) row.append(el("img", {src: "/" + m, alt: e.id, style: "max-width:160px"}));
      else if (m.endsWith(".wav")) row.append(el("audio", {src: "/" + m, controls: "", preload: "none"}));
    }
    ev.append(row);
  }
  const gates = el("div", {class: "gates"});
  for (const g of q.gates) gates.append(el("div", {text: "rejected by " + g}));
  return el("div", {class: "card" + (d ? " " + d.decision : ""), "data-kind": "item", "data-id": q.id},
    el("div", {}, el("b", {text: q.category}), el("div", {class: "ev", text: q.id})),
    el("div", {}, el("div", {class: "question", text: q.question}), opts,
      el("div", {class: "answer", text: "answer: " + q.answer}), ev, gates, controls("item", q.id)));
}
function summary() {
  const n = k => Object.keys(DATA.decisions).filter(x => x.startsWith(k + ":")).length;
  document.getElementById("summary").textContent =
    "reviewed " + n("shot") + " of " + DATA.shots.length + " shots, " + n("item") + " of " +
    DATA.items.length + " items; decisions go to review/decisions.jsonl";
}
(async () => {
  DATA = await (await fetch("/api/data")).json();
  document.getElementById("run").textContent = DATA.run;
  const shots = document.getElementById("shots"), items = document.getElementById("items");
  for (const s of DATA.shots) shots.append(shotCard(s));
  for (const q of DATA.items) items.append(itemCard(q));
  summary();
  document.body.setAttribute("data-ready", "1");
})();
</script></body></html>
"""
