// komaken web page: the Analysis page (a record searched position by position, its evaluation graph,
// MultiPV lines, marked moves, annotated downloads) and the Play page's Hint and "Analyse this game"
// buttons. Uses app.js's helpers ($, el, api, post, flash, pages, play) and board.js's drawBoard/drawHand.
"use strict";

const an = {games: [], limits: null, job: null, results: [], ply: 0, flip: false, events: null};
const SYMBOL = {inaccuracy: "?!", mistake: "?", blunder: "??"};
const MARK_COLOR = {inaccuracy: "#d9a400", mistake: "#e06a00", blunder: "#c8141a"};
const CP_RANGE = 2000;  // the score axis: ±2000 cp (a larger score or a mate is drawn at the edge)

async function initAnalysis() {
  if (an.games.length) return;
  const [games, limits] = await Promise.all([api("/api/games"), api("/api/analysis/limits")]);
  an.games = games.games.filter(g => g.analysis);
  an.limits = limits;
  $("#an-game").replaceChildren(...an.games.map(g => el("option", {value: g.id}, g.title)));
  for (const [id, key] of [["#an-seconds", "seconds"], ["#an-multipv", "multipv"]]) {
    Object.assign($(id), {min: limits[key].min, max: limits[key].max, step: limits[key].step});
  }
  $("#an-record").maxLength = limits.record;
  $("#an-form").addEventListener("submit", (ev) => { ev.preventDefault(); startAnalysis(); });
  $("#an-file").addEventListener("change", readFile);
  $("#an-prev").addEventListener("click", () => showAnalysisPly(an.ply - 1));
  $("#an-next").addEventListener("click", () => showAnalysisPly(an.ply + 1));
  $("#an-flip").addEventListener("click", () => { an.flip = !an.flip; showAnalysisPly(an.ply); });
  $("#an-new").addEventListener("click", () => { $("#an-form").hidden = false; $("#an-form").scrollIntoView(); });
  $("#an-stop").addEventListener("click", () => an.job && post(`/api/analysis/${an.job.id}/stop`).catch(e => flash(e.message)));
  document.addEventListener("keydown", (ev) => {
    if (current !== "analysis" || !an.job || ["INPUT", "TEXTAREA", "SELECT"].includes(ev.target.tagName)) return;
    const to = {ArrowLeft: an.ply - 1, ArrowRight: an.ply + 1, Home: 0, End: an.job.frames.length - 1}[ev.key];
    if (to === undefined) return;
    ev.preventDefault();  // Home and End would scroll the page
    showAnalysisPly(to);
  });
}

// a record file: UTF-8 when it decodes as such, else Shift_JIS (what .kif and .ki2 files are)
async function readFile() {
  const f = $("#an-file").files[0];
  if (!f) return;
  const bytes = await f.arrayBuffer();
  let text;
  try { text = new TextDecoder("utf-8", {fatal: true}).decode(bytes); }
  catch (e) { text = new TextDecoder("shift_jis").decode(bytes); }
  if (text.length > an.limits.record) { flash(`${f.name} has ${text.length} characters: at most ${an.limits.record}`); return; }
  $("#an-record").value = text.replace(/^\ufeff/, "");
}

function settings() {
  const num = (id) => { const v = $(id).value; const x = Number(v); return v === "" ? null : (Number.isFinite(x) ? x : v); };
  return {seconds: num("#an-seconds"), multipv: num("#an-multipv")};
}

async function startAnalysis(body) {
  try {
    const doc = await post("/api/analysis", body || {game: $("#an-game").value, record: $("#an-record").value, ...settings()});
    openJob(doc);
  } catch (e) { flash(e.message); }
}

function openJob(doc) {
  if (an.events) an.events.close();
  an.job = doc;
  an.results = doc.results.slice();
  an.ply = 0;
  an.flip = false;
  $("#an-view").hidden = false;
  $("#an-form").hidden = true;  // the board, both hands and the graph on one screen
  fillAnalysisMoves(doc);
  $("#an-moves").classList.toggle("numbered", !!doc.game.numbered);
  $("#an-downloads").replaceChildren("Download with the analysis: ", ...doc.formats.map(f =>
    el("a", {href: `/api/analysis/${doc.id}/record?format=${f}`, id: "an-dl-" + f, download: `komaken-analysis.${f}`},
       f.toUpperCase()), " "));
  const es = new EventSource(`/api/analysis/${doc.id}/events`);
  an.events = es;
  es.onmessage = (ev) => {
    const d = JSON.parse(ev.data);
    if (d.type === "state") { an.job = d; an.results = d.results.slice(); }
    else if (d.type === "ply") an.results[d.ply] = d;
    else if (d.type === "done") { an.job.running = false; an.job.cancelled = d.cancelled; an.job.error = d.error; es.close(); }
    refresh();
  };
  es.onerror = () => { if (an.job && !an.job.running) es.close(); };
  refresh();
  showAnalysisPly(0);
}

function refresh() {
  const job = an.job, done = an.results.filter(Boolean).length;
  let text = `${job.game.title}: ${done} of ${job.total} positions analysed · ${job.seconds} s a position · ` +
    `${job.multipv} line${job.multipv > 1 ? "s" : ""}`;
  if (job.error) text += ` — ${job.error}`;
  else if (!job.running) text += job.cancelled ? " — stopped" : " — done";
  $("#an-status").textContent = text;
  $("#an-stop").disabled = !job.running;
  drawGraph();
  markMoves();
  summary();
  if (an.results[an.ply]) showLines(an.ply);
}

// the evaluation graph: the first player's win % (solid, left axis) and the score in centipawns
// (dashed, right axis), both from the first player's view (sente in shogi, white in chess), one point a position; a point is marked in the colour of the move
// that led to it, and clicking one goes to that position
function drawGraph() {
  const job = an.job, W = 560, H = 190, L = 40, R = 46, T = 10, B = 30;
  const n = Math.max(1, job.total - 1), w = W - L - R, h = H - T - B;
  const x = (ply) => L + ply * w / n;
  const yWin = (win) => T + (100 - win) * h / 100;
  const yCp = (r) => {
    const cp = r.cp === null ? (r.win >= 50 ? CP_RANGE : -CP_RANGE) : Math.max(-CP_RANGE, Math.min(CP_RANGE, r.cp));
    return T + (CP_RANGE - cp) * h / (2 * CP_RANGE);
  };
  const svg = svgEl("svg", {viewBox: `0 0 ${W} ${H}`, id: "an-svg", role: "img"});
  svg.appendChild(svgEl("rect", {x: L, y: T, width: w, height: yWin(50) - T, fill: "#f3ece0"}));
  for (const p of [0, 25, 50, 75, 100]) {
    svg.appendChild(svgEl("line", {x1: L, x2: L + w, y1: yWin(p), y2: yWin(p), stroke: p === 50 ? "#9b8b70" : "#e2d8c4"}));
    svg.appendChild(svgEl("text", {x: L - 4, y: yWin(p) + 3, "text-anchor": "end", class: "y-win"}, `${p}%`));
  }
  for (const c of [CP_RANGE, CP_RANGE / 2, 0, -CP_RANGE / 2, -CP_RANGE]) {
    svg.appendChild(svgEl("text", {x: L + w + 4, y: yCp({cp: c, win: 50}) + 3, class: "y-cp"}, c > 0 ? `+${c}` : String(c)));
  }
  const step = n <= 20 ? 5 : n <= 60 ? 10 : n <= 160 ? 20 : 50;
  for (let p = 0; p <= n; p += step) {
    svg.appendChild(svgEl("line", {x1: x(p), x2: x(p), y1: T + h, y2: T + h + 3, stroke: "#9b8b70"}));
    svg.appendChild(svgEl("text", {x: x(p), y: T + h + 13, "text-anchor": "middle", class: "x-ply"}, String(p)));
  }
  svg.appendChild(svgEl("text", {x: L + w / 2, y: H - 3, "text-anchor": "middle"}, "ply (moves played)"));
  const view = job.game.side_names[job.game.first];  // scores are the first player's view
  svg.appendChild(svgEl("text", {x: 10, y: T + h / 2, "text-anchor": "middle", transform: `rotate(-90 10 ${T + h / 2})`},
    `${view} win %`));
  svg.appendChild(svgEl("text", {x: W - 6, y: T + h / 2, "text-anchor": "middle", transform: `rotate(90 ${W - 6} ${T + h / 2})`},
    `score (cp, ${view}'s view)`));
  const pts = an.results.filter(Boolean);
  if (pts.length) {
    const path = (f) => pts.map((r, i) => `${i ? "L" : "M"}${x(r.ply).toFixed(1)},${f(r).toFixed(1)}`).join(" ");
    svg.appendChild(svgEl("path", {d: path(r => yCp(r)), fill: "none", stroke: "#5b7fb5", "stroke-width": 1.2,
                                   "stroke-dasharray": "4 3", class: "cp-line"}));
    svg.appendChild(svgEl("path", {d: path(r => yWin(r.win)), fill: "none", stroke: "#2b2118", "stroke-width": 1.8,
                                   class: "win-line"}));
    for (const r of pts) {
      const c = svgEl("circle", {cx: x(r.ply), cy: yWin(r.win), r: r.mark ? 4.5 : 2.6, fill: MARK_COLOR[r.mark] || "#2b2118",
        class: "pt" + (r.mark ? " marked" : ""), "data-ply": r.ply});
      c.appendChild(svgEl("title", {}, `ply ${r.ply}: ${r.score} (${r.win.toFixed(1)}%)` + (r.mark ? ` — ${r.mark}` : "")));
      c.addEventListener("click", () => showAnalysisPly(r.ply));
      svg.appendChild(c);
    }
  }
  svg.appendChild(svgEl("line", {x1: x(an.ply), x2: x(an.ply), y1: T, y2: T + h, stroke: "#8a3b12", "stroke-width": 1.2,
                                 id: "an-cursor"}));
  $("#an-graph").replaceChildren(svg);
}

function markMoves() {
  for (const li of $("#an-moves").children) {
    const r = an.results[Number(li.dataset.ply)];
    li.className = r && r.mark ? "mark-" + r.mark : "";
    li.querySelector(".sym")?.remove();
    if (r && r.mark) li.append(el("span", {class: "sym", title: `${r.mark}: −${r.loss.toFixed(1)} win % for the mover`}, SYMBOL[r.mark]));
    li.classList.toggle("current", Number(li.dataset.ply) === an.ply);
  }
}

function summary() {
  const count = [{}, {}];
  for (const r of an.results) if (r && r.mark) { const side = 1 - r.turn; count[side][r.mark] = (count[side][r.mark] || 0) + 1; }
  $("#an-summary").textContent = an.job.game.side_names.map((name, i) =>
    `${name}: ${["inaccuracy", "mistake", "blunder"].map(m => `${count[i][m] || 0} ${m}`).join(", ")}`).join(" · ") +
    " (a drop of 5 / 10 / 15 win % for the mover)";
}

function fillAnalysisMoves(doc) {
  $("#an-moves").replaceChildren(...notation(doc.labels, doc.western).map((m, i) =>
    el("li", {"data-ply": i + 1, onclick: () => showAnalysisPly(i + 1)}, m)));
}

window.addEventListener("pieces", () => {
  if (!an.job) return;
  fillAnalysisMoves(an.job);
  showAnalysisPly(an.ply);
});

function showLines(n) {
  const r = an.results[n];
  const box = $("#an-lines");
  if (!r) { box.replaceChildren(el("div", {class: "line"}, "not analysed yet")); return; }
  const played = n ? notation([r.move_words], [an.job.western?.[n - 1]])[0] : null;
  const head = played ? `after ${played}` : "start";
  const before = an.results[n - 1]?.lines?.[0];
  const best = before ? notation(before.words, before.western)[0] : null;
  const judged = r.mark ? ` — ${SYMBOL[r.mark]} ${r.mark} (−${r.loss.toFixed(1)}%; best was ${best || "?"})` : "";
  const rows = r.lines.map((ln, i) => el("div", {class: "line", "data-rank": i + 1},
    el("span", {class: "score"}, ln.score), `${ln.win.toFixed(0)}% `, notation(ln.words, ln.western).join(" ")));
  box.replaceChildren(el("div", {class: "line head"}, `${head}: ${r.score} for ${an.job.game.side_names[an.job.game.first]} (${r.win.toFixed(1)}%)`, judged,
    r.depth ? ` · depth ${r.depth}` : "", r.over ? ` · ${r.over}` : ""), ...rows);
}

function showAnalysisPly(n) {
  const job = an.job;
  if (!job) return;
  n = Math.max(0, Math.min(job.frames.length - 1, n));
  an.ply = n;
  const f = job.frames[n];
  drawBoard($("#an-board"), f.board, {flip: an.flip});
  const [top, bottom] = an.flip ? [0, 1] : [1, 0];
  const marks = {marks: f.board.hand_marks, empty: f.board.hand_empty};
  drawHand($("#an-hand-top"), f.board.hands ? f.board.hands[top] : null, top, marks);
  drawHand($("#an-hand-bottom"), f.board.hands ? f.board.hands[bottom] : null, bottom, marks);
  $("#an-ply").textContent = `ply ${n} / ${job.frames.length - 1}`;
  showLines(n);
  markMoves();
  const cur = $("#an-moves li.current");
  if (cur) cur.parentElement.scrollTop = cur.offsetTop - cur.parentElement.offsetTop - 40;  // never the page
  drawGraph();  // the cursor at this ply
}

// ---------------------------------------------------------------------------- the Play page's buttons
const analysisHooks = {
  shownPly: -1,
  playRendered(st) {
    const can = !!st.game.analysis;
    $("#hint-btn").hidden = !can || !!st.outcome || !st.legal.length;
    $("#analyse-game-btn").hidden = !can || !st.moves.length;
    if (st.ply !== this.shownPly) { $("#hint").hidden = true; this.shownPly = st.ply; }
  },
};
window.analysisHooks = analysisHooks;

async function askHint() {
  const st = play.state;
  const box = $("#hint");
  box.hidden = false;
  box.textContent = "the engine is looking for a move…";
  try {
    const h = await post(`/api/play/${st.id}/hint`, {seconds: 1});
    const score = h.cp === null ? `mate ${h.mate > 0 ? "+" : ""}${h.mate}` : `${h.cp > 0 ? "+" : ""}${h.cp} cp`;
    box.replaceChildren(el("b", {}, "hint: "), h.words, ` · ${score} for ${st.game.side_names[h.turn]} (win ${h.win}%)`,
      el("div", {class: "pv"}, h.line.join(" ")));
  } catch (e) { box.textContent = e.message; }
}

async function analyseGame() {
  await initAnalysis();
  location.hash = "#analysis";
  startAnalysis({session: play.state.id, ...settings()});
}

$("#hint-btn").addEventListener("click", askHint);
$("#analyse-game-btn").addEventListener("click", () => analyseGame().catch(e => flash(e.message)));

pages.analysis = () => initAnalysis().catch(e => flash(e.message));
if (current === "analysis") pages.analysis();  // app.js routed before this script was loaded
