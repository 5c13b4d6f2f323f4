// komaken web page: Play, Experiments, Games, Reports. Plain JavaScript, no build step.
"use strict";

const $ = (sel) => document.querySelector(sel);
const el = (tag, attrs, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v; else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const k of kids) if (k !== null && k !== undefined) e.append(k);
  return e;
};

async function api(path, opts) {
  const r = await fetch(path, opts);
  const data = await r.json().catch(() => ({error: `HTTP ${r.status}`}));
  if (!r.ok) throw new Error(data.error || `HTTP ${r.status}`);
  return data;
}
const post = (path, body) => api(path, {method: "POST", headers: {"Content-Type": "application/json"},
                                         body: JSON.stringify(body || {})});

function flash(msg) {
  const f = $("#flash");
  f.textContent = msg;
  f.hidden = !msg;
  clearTimeout(flash.t);
  if (msg) flash.t = setTimeout(() => { f.hidden = true; }, 6000);
}

// ---------------------------------------------------------------------------------------- routing
const pages = {};
let current = null;
function route() {
  const name = (location.hash.slice(1).split("/")[0]) || "play";
  for (const s of document.querySelectorAll(".page")) s.hidden = s.id !== "page-" + name;
  for (const a of document.querySelectorAll("nav a")) a.classList.toggle("active", a.dataset.page === name);
  if (current !== name) { current = name; if (pages[name]) pages[name](); }
}
window.addEventListener("hashchange", route);

// ------------------------------------------------------------------------------------------- play
const play = {games: [], state: null, flip: false, selected: null, events: null, pendingPromo: null};

async function initPlay() {
  if (play.games.length) return;
  const doc = await api("/api/games");
  play.games = doc.games;
  initClockForm(doc.clock);
  const sel = $("#game-select");
  sel.replaceChildren(...play.games.map(g => el("option", {value: g.id}, g.title)));
  sel.addEventListener("change", setupSides);
  for (const k of document.querySelectorAll(".side-kind")) {
    k.addEventListener("change", () => showOptions([k.id.split("-")[0]]));
  }
  setupSides();
  $("#setup").addEventListener("submit", (ev) => { ev.preventDefault(); newGame(); });
  $("#setup-toggle").addEventListener("click", () => collapseSetup(!$("#setup").classList.contains("collapsed")));
  $("#flip-btn").addEventListener("click", () => { play.flip = !play.flip; render(); });
  $("#undo-btn").addEventListener("click", () => act("undo"));
  $("#resign-btn").addEventListener("click", () => act("resign"));
  $("#pass-btn").addEventListener("click", () => sendMove("pass"));
  $("#copy-position").addEventListener("click", () => copy($("#position-text").textContent));
  $("#promo-cancel").addEventListener("click", () => { play.pendingPromo = null; $("#promo").hidden = true; render(); });
}

function gameInfo() { return play.games.find(g => g.id === $("#game-select").value); }

function setupSides() {
  const g = gameInfo();
  $("#black-legend").textContent = g.side_names[0];
  $("#white-legend").textContent = g.side_names[1];
  nameClockRows();
  const own = g.formats.filter(f => f !== "txt").map(f => f.toUpperCase());
  $("#record-formats").textContent = own.length ? `${own.join(", ")}, or a move list` : "a move list";
  // the side that moves first is listed first and played by the human
  $("#black-side").style.order = g.first === 0 ? 1 : 2;
  $("#white-side").style.order = g.first === 1 ? 1 : 2;
  ["black", "white"].forEach((side, i) => {
    const s = $(`#${side}-kind`);
    s.replaceChildren(...g.players.map(p => el("option", {value: p.kind, title: p.help}, p.kind)));
    s.value = i === g.first ? "human" : (g.players[1] || g.players[0]).kind;
  });
  showOptions();
}

// the settings of the chosen player type, as the server lists them (numbers in their range, switches);
// only the sides named are drawn again, so choosing one side's player keeps what the other side has
function showOptions(sides = ["black", "white"]) {
  const g = gameInfo();
  for (const side of sides) {
    const kind = $(`#${side}-kind`).value;
    const p = g.players.find(x => x.kind === kind) || {settings: []};
    $(`#${side}-settings`).replaceChildren(...p.settings.map(o => settingInput(side, o)));
  }
}

function settingInput(side, o) {
  const attrs = {id: `${side}-${o.name}`, "data-name": o.name, "data-kind": o.kind, class: "num", title: o.help};
  if (o.kind === "bool") return el("label", {class: "opt"}, o.name + " ", el("input", {...attrs, type: "checkbox"}));
  Object.assign(attrs, {type: "number", step: o.kind === "int" ? "1" : "any"});
  if (o.low !== null) attrs.min = o.low;
  if (o.high !== null) attrs.max = o.high;
  return el("label", {class: "opt"}, o.name + " ", el("input", attrs), o.kind === "seconds" ? " s" : "");
}

function sideSpec(side) {
  const spec = {kind: $(`#${side}-kind`).value};
  for (const inp of document.querySelectorAll(`#${side}-settings input`)) {
    const x = Number(inp.value);  // a number too large for JSON goes as typed, for the server to name
    if (inp.type === "checkbox") { if (inp.checked) spec[inp.dataset.name] = true; }
    else if (inp.value !== "") spec[inp.dataset.name] = Number.isFinite(x) ? x : inp.value;
  }
  return spec;
}

async function newGame() {
  try {
    const st = await post("/api/play", {game: $("#game-select").value, black: sideSpec("black"),
      white: sideSpec("white"), start: $("#start-text").value, record: $("#record-text").value, ...clockSpec()});
    play.state = null;
    play.selected = null;
    const human = st.sides.map(s => s.kind === "human"), down = st.game.bottom;
    play.flip = !human[down] && human[1 - down];  // the human's side at the bottom
    setState(st);
    $("#play-area").hidden = false;
    collapseSetup(true);  // the board, both hands and the moves fit the screen
    listen(st.id);
    flash("");
  } catch (e) { flash(e.message); }
}

function collapseSetup(yes) {
  $("#setup").classList.toggle("collapsed", yes);
  $("#setup-toggle").hidden = false;
  $("#setup-toggle").textContent = yes ? "New game ▸" : "New game ▾";
}

function listen(id) {
  if (play.events) play.events.close();
  play.events = new EventSource(`/api/play/${id}/events`);
  play.events.onmessage = (ev) => {
    const d = JSON.parse(ev.data);
    if (d.type === "state" && d.id === (play.state && play.state.id)) setState(d);
    else if (d.type === "thinking" && play.state) { play.state.thinking = d; renderThinking(); }
    else if (d.type === "error") flash(d.error);
  };
}

function setState(st) {
  if (play.state && st.id === play.state.id && st.version < play.state.version) return;
  play.state = st;
  render();
}

async function act(what) {
  try { setState(await post(`/api/play/${play.state.id}/${what}`)); play.selected = null; render(); }
  catch (e) { flash(e.message); }
}

async function sendMove(id) {
  play.selected = null;
  try { setState(await post(`/api/play/${play.state.id}/move`, {move: id})); }
  catch (e) { flash(e.message); render(); }
}

function movesFrom(sel) {
  const legal = play.state.legal;
  if (!sel) return [];
  if (sel.startsWith("hand:")) return legal.filter(m => m.drop === sel.slice(5));
  return legal.filter(m => m.from === sel);
}

function onSquare(id, how) {
  const st = play.state;
  if (!st || st.outcome) return;
  if (how === "drag-start") { play.selected = id; return; }
  if (how === "cancel") { render(); return; }
  const cands = movesFrom(play.selected).filter(m => m.to === id);
  if (cands.length) return chooseMove(cands);
  const direct = st.legal.filter(m => !m.from && !m.drop && m.to === id);
  if (direct.length) return sendMove(direct[0].id);
  play.selected = st.legal.some(m => m.from === id) && play.selected !== id ? id : null;
  render();
}

// moves with the same from and to differ by their choice (成 / 不成, Q R B N): ask which
function chooseMove(cands) {
  if (cands.length === 1) return sendMove(cands[0].id);
  play.pendingPromo = cands;
  $("#promo-choices").replaceChildren(...cands.map(m => el("button", {type: "button", "data-choice": m.choice,
    class: "choice", onclick: () => pickChoice(m)}, choiceLabel(m))));
  $("#promo").hidden = false;
}

const choiceLabel = (m) => play.state.game.choices[m.choice] || m.choice || m.id;

function pickChoice(m) {
  play.pendingPromo = null;
  $("#promo").hidden = true;
  sendMove(m.id);
}

function onHand(kind) {
  play.selected = play.selected === "hand:" + kind ? null : "hand:" + kind;
  render();
}

function render() {
  const st = play.state;
  if (!st) return;
  const b = st.board;
  const targets = new Set(movesFrom(play.selected).map(m => m.to));
  if (!st.outcome) for (const m of st.legal) if (m.to && !m.from && !m.drop) targets.add(m.to);  // one-click moves
  drawBoard($("#board"), b, {flip: play.flip, selected: play.selected, targets, onSquare,
                             dragFrom: (id) => st.legal.some(m => m.from === id)});
  const humanTurn = st.legal.length > 0;
  const [top, bottom] = play.flip ? [0, 1] : [1, 0];
  for (const [elId, side] of [["#hand-top", top], ["#hand-bottom", bottom]]) {
    drawHand($(elId), b.hands ? b.hands[side] : null, side, {selected: play.selected, side: st.turn,
      canDrop: humanTurn && side === st.turn, onHand, marks: b.hand_marks, empty: b.hand_empty});
  }
  const words = notation(st.moves.map(m => m.label), st.moves.map(m => m.western || m.label));
  $("#moves").replaceChildren(...words.map((m, i) => el("li", {"data-ply": i + 1}, m)));
  $("#moves").classList.toggle("numbered", !!st.game.numbered);  // labels carry their own move numbers
  $("#moves").scrollTop = 1e9;
  $("#position-text").textContent = st.position;
  $("#pass-btn").hidden = !st.legal.some(m => m.pass);
  $("#undo-btn").disabled = !st.can_undo;
  $("#resign-btn").disabled = !!st.outcome || !st.sides.some(s => s.kind === "human");
  renderStatus();
  renderThinking();
  if (window.analysisHooks) analysisHooks.playRendered(st);  // the Hint and Analyse buttons (analysis.js)
  renderClocks(st, play.flip);
  $("#downloads").replaceChildren("Download: ", ...st.game.formats.map(f =>
    el("a", {href: `/api/play/${st.id}/record?format=${f}`, download: `komaken-${st.game.id}.${f}`,
             id: "dl-" + f}, f.toUpperCase()), " "));
}

function renderStatus() {
  const st = play.state, o = st.outcome;
  let text;
  if (o) {
    const names = st.game.side_names;
    const who = o.winner === null ? (o.reason === "aborted" ? "no result" : "draw")
      : `${names[o.winner === "black" ? 0 : 1]} wins`;
    text = `${o.text}: ${who} after ${st.ply} moves` + (o.detail ? ` — ${o.detail}` : "");
  } else {
    text = `${st.game.side_names[st.turn]} to move (${st.sides[st.turn].name})` + (st.board.check ? ` — ${st.board.check_label || "check"}` : "");
  }
  if (st.board.note) text += ` · ${st.board.note}`;
  $("#status").textContent = text;
  $("#status").classList.toggle("over", !!o);
}

function renderThinking() {
  const t = play.state && play.state.thinking, last = play.state && play.state.score;
  const box = $("#thinking");
  if (!t) {  // the last engine move's score stays shown, from the side it names
    box.hidden = !last;
    box.replaceChildren(last ? el("span", {class: "last-score"}, last.text) : "");
    return;
  }
  box.hidden = false;
  box.replaceChildren(el("b", {}, "thinking… "), `depth ${t.depth || 0}`,
    t.view ? ` · ${t.view}` : "", t.nodes ? ` · ${t.nodes} nodes` : "",
    el("div", {class: "pv"}, notation(t.pv || [], t.pv_western).join(" ")));
}

function copy(text) {
  if (navigator.clipboard) navigator.clipboard.writeText(text).catch(() => {});
  flash("copied: " + text);
}

pages.play = () => initPlay().catch(e => flash(e.message));

// ------------------------------------------------------------------------------------ experiments
const exps = {sources: []};

async function dbOptions(selectId, kinds) {
  const dbs = (await api("/api/dbs")).dbs.filter(d => !kinds || kinds.includes(d.kind || "experiment"));
  const s = $(selectId);
  const keep = s.value;
  s.replaceChildren(...dbs.map(d => el("option", {value: d.id}, `${d.name}${d.experiment ? " — " + d.experiment : ""}`)));
  if (keep) s.value = keep;
  return dbs;
}

pages.experiments = async () => {
  for (const es of exps.sources) es.close();
  exps.sources = [];
  const box = $("#experiments");
  const dbs = (await api("/api/dbs")).dbs;
  if (!dbs.length) { box.replaceChildren(el("p", {}, "No database: start with komaken serve --db RESULTS.db")); return; }
  box.replaceChildren(...dbs.map(d => el("div", {class: "panel exp", id: `exp-${d.id}`},
    el("h2", {}, d.name), el("div", {class: "exp-body"}, d.error || "loading…"))));
  for (const d of dbs) {
    if (d.kind === "study") {  // a piece-values study has no pairings: its report is on the Reports page
      $(`#exp-${d.id} .exp-body`).replaceChildren(el("p", {}, `${d.experiment} · ${d.games} of ${d.target} games · `,
        el("a", {href: `#reports/${d.id}`}, "report")));
      continue;
    }
    const es = new EventSource(`/api/dbs/${d.id}/events`);
    es.onmessage = (ev) => renderExperiment(d.id, JSON.parse(ev.data));
    es.addEventListener("live", (ev) => watchLive(d.id, JSON.parse(ev.data)));  // watch.js
    exps.sources.push(es);
  }
};

function renderExperiment(id, doc) {
  const body = $(`#exp-${id} .exp-body`);
  if (doc.error) { body.textContent = doc.error; return; }
  const rows = doc.pairings.map(p => el("tr", {"data-pairing": p.name},
    el("td", {class: "setting", title: p.name}, p.setting), el("td", {}, `${p.a} vs ${p.b}`), el("td", {class: "n"}, `${p.games}/${p.target}`),
    el("td", {class: "n"}, String(p.a_wins)), el("td", {class: "n"}, String(p.b_wins)), el("td", {class: "n"}, String(p.draws)),
    el("td", {class: "n"}, `${p.text.score} (${p.text.score_ci95})`),  // komaken.lab.stats.display
    el("td", {class: "n"}, `${p.text.elo} (${p.text.elo_ci95})`), el("td", {class: "n"}, p.text.p),
    el("td", {}, p.sprt ? `${p.sprt.state} (LLR ${p.sprt.llr.toFixed(2)} in [${p.sprt.lower.toFixed(2)}, ${p.sprt.upper.toFixed(2)}])` : "–")));
  const head = ["setting", "players", "games", "W", "L", "D", "score of a (95% CI)", "Elo (95% CI)", "p", "SPRT"];
  body.replaceChildren(
    el("p", {}, `${doc.experiment} · ${doc.variant || doc.game} · `, el("span", {class: "games-count"}, String(doc.games)),
       ` of ${doc.target} games · `, el("a", {href: `#games/${id}`}, "browse games"), " · ",
       el("a", {href: `#reports/${id}`}, "report")),
    el("table", {}, el("thead", {}, el("tr", {}, ...head.map(h => el("th", {}, h)))), el("tbody", {}, ...rows)));
}

// ------------------------------------------------------------------------------------------ games
const games = {page: 1, doc: null, ply: 0, flip: false, db: null};

pages.games = async () => {
  const want = location.hash.split("/")[1];
  await dbOptions("#games-db", ["experiment"]);  // a study database has no game list
  if (want !== undefined) $("#games-db").value = want;
  if (!games.init) {
    games.init = true;
    $("#games-db").addEventListener("change", () => { games.page = 1; loadFacets(); });
    for (const id of ["#f-pairing", "#f-result", "#f-reason", "#f-min", "#f-max"]) {
      $(id).addEventListener("change", () => { games.page = 1; loadGames(); });
    }
    $("#game-filters").addEventListener("submit", (ev) => ev.preventDefault());
    $("#r-slider").addEventListener("input", () => showPly(Number($("#r-slider").value)));
    $("#r-prev").addEventListener("click", () => showPly(games.ply - 1));
    $("#r-next").addEventListener("click", () => showPly(games.ply + 1));
    $("#r-flip").addEventListener("click", () => { games.flip = !games.flip; showPly(games.ply); });
    $("#r-copy").addEventListener("click", () => copy($("#r-position").textContent));
    document.addEventListener("keydown", (ev) => {
      if (current !== "games" || !games.doc || ev.target.tagName === "INPUT" && ev.target.type !== "range") return;
      if (ev.key === "ArrowLeft") { showPly(games.ply - 1); ev.preventDefault(); }
      if (ev.key === "ArrowRight") { showPly(games.ply + 1); ev.preventDefault(); }
      if (ev.key === "Home") { showPly(0); ev.preventDefault(); }
      if (ev.key === "End") { showPly(games.doc.frames.length - 1); ev.preventDefault(); }
    });
  }
  if ($("#games-db").value !== "") await loadFacets();
};

async function loadFacets() {
  const db = $("#games-db").value;
  try {
    const f = await api(`/api/dbs/${db}/facets`);
    for (const [id, key] of [["#f-min", "min_plies"], ["#f-max", "max_plies"]]) {
      Object.assign($(id), {min: f.limits[key].min, max: f.limits[key].max});
    }
    $("#f-pairing").replaceChildren(el("option", {value: ""}, "any"),
      ...f.pairings.map(p => el("option", {value: p.name}, `${p.setting} (${p.a} vs ${p.b})`)));
    games.settings = Object.fromEntries(f.pairings.map(p => [p.name, p.setting]));
    $("#f-reason").replaceChildren(el("option", {value: ""}, "any"), ...f.reasons.map(r => el("option", {value: r}, r)));
    await loadGames();
  } catch (e) { flash(e.message); }
}

async function loadGames() {
  const db = $("#games-db").value;
  const q = new URLSearchParams({page: games.page, per_page: 25});
  for (const [k, id] of [["pairing", "#f-pairing"], ["result", "#f-result"], ["reason", "#f-reason"],
                         ["min_plies", "#f-min"], ["max_plies", "#f-max"]]) if ($(id).value) q.set(k, $(id).value);
  try {
    const d = await api(`/api/dbs/${db}/games?${q}`);
    const head = ["id", "setting", "#", "a", "b", "result", "reason", "sente", "plies", "seconds"];
    const rows = d.games.map(g => el("tr", {"data-id": g.id, class: "game-row", onclick: () => openGame(db, g.id)},
      ...[g.id, (games.settings || {})[g.pairing] || g.pairing, g.game_index, g.a, g.b, g.result, g.reason, g.sente, g.plies, g.seconds.toFixed(1)]
        .map(v => el("td", {}, String(v)))));
    const nav = el("div", {class: "pager"},
      el("button", {type: "button", id: "page-prev", onclick: () => { games.page--; loadGames(); }}, "◀"),
      el("span", {id: "page-info"}, ` page ${d.page} of ${d.pages} · ${d.total} games `),
      el("button", {type: "button", id: "page-next", onclick: () => { games.page++; loadGames(); }}, "▶"));
    nav.querySelector("#page-prev").disabled = d.page <= 1;
    nav.querySelector("#page-next").disabled = d.page >= d.pages;
    $("#games-list").replaceChildren(nav, el("table", {class: "games"},
      el("thead", {}, el("tr", {}, ...head.map(h => el("th", {}, h)))), el("tbody", {}, ...rows)));
  } catch (e) { flash(e.message); }
}

async function openGame(db, id) {
  try {
    const doc = await api(`/api/dbs/${db}/games/${id}`);
    games.doc = doc;
    games.db = db;
    $("#replay").hidden = false;
    $("#r-title").textContent = `game ${doc.id}: ${(games.settings || {})[doc.pairing] || doc.pairing} #${doc.game_index} — ${doc.a} vs ${doc.b}, ` +
      `result ${doc.result} (${doc.reason}), ${doc.plies} plies` + (doc.error ? ` — ${doc.error}` : "");
    fillReplayMoves(doc);
    $("#r-slider").max = Math.max(0, doc.frames.length - 1);
    $("#r-downloads").replaceChildren("Download: ", ...doc.game.formats.map(f =>
      el("a", {href: `/api/dbs/${db}/games/${id}/record?format=${f}`, id: "r-dl-" + f}, f.toUpperCase()), " "));
    showPly(0);
    $("#replay").scrollIntoView({block: "nearest"});
  } catch (e) { flash(e.message); }
}

function fillReplayMoves(doc) {
  $("#r-moves").replaceChildren(...notation(doc.labels, doc.western).map((m, i) =>
    el("li", {"data-ply": i + 1, onclick: () => showPly(i + 1)}, m)));
}

function showPly(n) {
  const doc = games.doc;
  if (!doc || !doc.frames.length) return;
  n = Math.max(0, Math.min(doc.frames.length - 1, n));
  games.ply = n;
  const f = doc.frames[n];
  drawBoard($("#r-board"), f.board, {flip: games.flip});
  const [top, bottom] = games.flip ? [0, 1] : [1, 0];
  const marks = {marks: f.board.hand_marks, empty: f.board.hand_empty};
  drawHand($("#r-hand-top"), f.board.hands ? f.board.hands[top] : null, top, marks);
  drawHand($("#r-hand-bottom"), f.board.hands ? f.board.hands[bottom] : null, bottom, marks);
  $("#r-slider").value = n;
  $("#r-ply").textContent = `ply ${n} / ${doc.frames.length - 1}`;
  $("#r-position").textContent = f.position;
  for (const li of $("#r-moves").children) li.classList.toggle("current", Number(li.dataset.ply) === n);
}

// ---------------------------------------------------------------------------------------- reports
pages.reports = async () => {
  const want = location.hash.split("/")[1];
  await dbOptions("#reports-db");
  if (want !== undefined) $("#reports-db").value = want;
  if (!pages.reports.init) {
    pages.reports.init = true;
    $("#reports-db").addEventListener("change", loadReport);
  }
  if ($("#reports-db").value !== "") loadReport();
};

async function loadReport() {
  const db = $("#reports-db").value;
  const box = $("#report");
  delete box.dataset.ready;
  box.replaceChildren(el("p", {class: "loading"}, "drawing the report…"));
  try {
    const r = await api(`/api/dbs/${db}/report`);
    const kids = r.blocks.map(b => reportBlock(b, db));
    box.replaceChildren(el("div", {class: "report-doc", "data-kind": r.kind}, ...kids));
    box.dataset.ready = "1";
  } catch (e) { box.textContent = e.message; }
}

// **bold** and `code` become elements; everything else stays text (never parsed as HTML)
function inline(text) {
  const out = [];
  for (const part of String(text).split(/(\*\*[^*]+\*\*|`[^`]+`)/)) {
    if (part.startsWith("**") && part.endsWith("**") && part.length > 4) out.push(el("strong", {}, part.slice(2, -2)));
    else if (part.startsWith("`") && part.endsWith("`") && part.length > 2) out.push(el("code", {}, part.slice(1, -1)));
    else if (part) out.push(part);
  }
  return out;
}

function reportBlock(b, db) {
  if (b.kind === "h1" || b.kind === "h2" || b.kind === "h3" || b.kind === "p") return el(b.kind, {}, ...inline(b.text));
  if (b.kind === "ul") return el("ul", {}, ...b.items.map(i => el("li", {}, ...inline(i))));
  if (b.kind === "table") {
    return el("div", {class: "wrap"}, el("table", {class: "report"},
      el("caption", {}, el("b", {}, `Table ${b.number}. `), ...inline(b.caption)),
      el("thead", {}, el("tr", {}, ...b.header.map(h => el("th", {}, h)))),
      el("tbody", {}, ...b.rows.map(row => el("tr", {}, ...row.map(c => el("td", {}, c)))))));
  }
  if (b.kind === "figure") {
    return el("figure", {id: "fig-" + b.name},
      el("img", {src: `/api/dbs/${db}/plots/${b.name}.svg?v=${Date.now()}`, alt: `Figure ${b.number}: ${b.caption}`}),
      el("figcaption", {}, el("b", {}, `Figure ${b.number}. `), ...inline(b.caption)));
  }
  return el("p", {}, JSON.stringify(b));
}

// a new piece set redraws what is on the page
window.addEventListener("pieces", () => {
  if (play.state) render();
  if (games.doc) { fillReplayMoves(games.doc); showPly(games.ply); }
});

// The header's 駒研 is written only once the page's own Japanese font is ready (or has failed):
// Chromium lays out text met while a web font is still loading with missing-glyph boxes and may
// keep those for that size and weight after the font has come (a machine without Japanese fonts
// showed the header as two boxes until something else changed its size)
const BRAND_KANJI = "駒研";
document.fonts.load('700 1em "komaken-ja"', BRAND_KANJI).finally(() => {
  document.querySelector(".brand").textContent += " " + BRAND_KANJI;
});

route();
