// komaken web page: game clocks. The server keeps the time (it ends a game on time even with this
// page closed); the page only shows the clocks it was sent, counting the running one down between states.
"use strict";

const clocks = {limits: null, state: null, at: 0, timer: null};

// the Clock inputs of the New game form, with the server's limits (GET /api/games "clock"): one row
// for both sides, or with "each side its own clock" one row a side (as ShogiHome sets each player's time)
function initClockForm(limits) {
  clocks.limits = limits;
  for (const prefix of ["clock", "clock-white"]) {
    for (const name of ["main", "byoyomi", "increment"]) {
      const lim = limits[name];
      Object.assign(document.getElementById(`${prefix}-${name}`), {min: lim.min, max: lim.max, step: lim.step});
    }
  }
  document.getElementById("clock-apart").addEventListener("change", nameClockRows);
}

// the rows' labels: "both", or the sides' names (set again when the game changes)
function nameClockRows() {
  const apart = document.getElementById("clock-apart").checked;
  document.getElementById("clock-white-row").hidden = !apart;
  document.getElementById("clock-who").textContent = apart ? document.getElementById("black-legend").textContent : "both";
  document.getElementById("clock-white-who").textContent = document.getElementById("white-legend").textContent;
}

function clockRow(prefix) {
  const spec = {};
  for (const name of ["main", "byoyomi", "increment"]) {
    const inp = document.getElementById(`${prefix}-${name}`);
    if (inp.value === "") continue;
    const x = Number(inp.value);
    spec[name] = Number.isFinite(x) ? x : inp.value;  // the server names what is wrong
  }
  return Object.keys(spec).length ? spec : null;
}

// the new game's clock fields: {clock} for both sides, or {black_clock, white_clock} each its own
// (a row left empty: that side plays without a clock); null fields: an untimed game
function clockSpec() {
  if (!document.getElementById("clock-apart").checked) return {clock: clockRow("clock")};
  const black = clockRow("clock"), white = clockRow("clock-white");
  if (!black && !white) return {clock: null};
  return {clock: null, black_clock: black || undefined, white_clock: white || undefined};
}

// 9:58, 1:02:03, 0:04.2 under ten seconds (as komaken.clock.display)
function clockText(s) {
  s = Math.max(0, s);
  if (s < 10) { const t = Math.floor(s * 10); return `0:0${Math.floor(t / 10)}.${t % 10}`; }
  const w = Math.floor(s), h = Math.floor(w / 3600), m = Math.floor(w / 60) % 60, sec = w % 60;
  const mm = h ? String(m).padStart(2, "0") : String(m);
  return (h ? `${h}:` : "") + `${mm}:${String(sec).padStart(2, "0")}`;
}

// what side ``c`` (a state's clock entry) reads ``elapsed`` seconds after the state was sent
function clockReading(c, elapsed) {
  const run = c.running ? elapsed : 0;
  const main = c.main - run;
  if (main > 0 || !c.control.byoyomi) return {main: Math.max(0, main), byoyomi: null};
  const byo = (c.byoyomi === null ? c.control.byoyomi + c.main : c.byoyomi) - run;
  return {main: 0, byoyomi: Math.max(0, byo)};
}

function renderClocks(st, flip) {
  if (st !== clocks.state) clocks.at = performance.now();  // a re-render of the same state keeps counting
  clocks.state = st;
  const has = !!(st && st.clock);
  for (const id of ["#clock-top", "#clock-bottom"]) document.querySelector(id).hidden = !has;
  clearInterval(clocks.timer);
  if (!has) return;
  clocks.flip = flip;
  tickClocks();
  if (!st.outcome && st.clock.some(c => c && c.running)) clocks.timer = setInterval(tickClocks, 100);
}

function tickClocks() {
  const st = clocks.state;
  const elapsed = st.outcome ? 0 : (performance.now() - clocks.at) / 1000;
  const [top, bottom] = clocks.flip ? [0, 1] : [1, 0];
  for (const [id, side] of [["#clock-top", top], ["#clock-bottom", bottom]]) {
    const box = document.querySelector(id), c = st.clock[side];
    box.dataset.side = side;
    if (!c) { box.replaceChildren(`${st.game.side_names[side]} · no clock`); box.className = "clock"; continue; }
    const r = clockReading(c, elapsed);
    const out = c.flagged || (r.main === 0 && (r.byoyomi === null || r.byoyomi === 0) && c.running);
    box.className = "clock" + (c.running && !st.outcome ? " running" : "") + (out ? " flagged" : "");
    box.title = c.text;
    box.replaceChildren(el("span", {class: "clock-side"}, st.game.side_names[side] + " "),
      el("span", {class: "clock-main"}, clockText(r.main)),
      r.byoyomi !== null ? el("span", {class: "clock-byoyomi"}, ` 秒読み ${clockText(r.byoyomi)}`)
        : c.control.byoyomi ? el("span", {class: "clock-extra"}, ` +${c.control.byoyomi}s`)
        : c.control.increment ? el("span", {class: "clock-extra"}, ` +${c.control.increment}s/move`) : "");
  }
}
