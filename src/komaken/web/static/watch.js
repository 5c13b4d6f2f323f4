// komaken web page, Experiments: the games a run is playing, move by move, and the run's controls
// (start, pause, resume, stop) for an experiment the server was given. Uses app.js (el, $, post,
// flash) and board.js (drawBoard, drawHand); app.js hands each database's `live` event here.
"use strict";

const watching = {};  // database id -> {box, controls, games}

function watchLive(id, doc) {
  const panel = $(`#exp-${id}`);
  if (!panel) return;
  let w = watching[id];
  if (!w || !panel.contains(w.box)) {
    w = watching[id] = {box: el("div", {class: "exp-live"})};
    w.controls = el("div", {class: "run-controls"});
    w.games = el("div", {class: "live-games"});
    w.box.append(w.controls, w.games);
    panel.append(w.box);
  }
  renderRun(id, w, doc.run);
  renderLiveGames(w.games, doc.playing);
}

const RUN_WORDS = {idle: "not running", running: "running", paused: "paused", finished: "finished",
                   stopped: "stopped", failed: "failed"};

function renderRun(id, w, run) {
  if (!run || !run.runnable) { w.controls.hidden = true; return; }
  w.controls.hidden = false;
  if (!w.controls.firstChild) {  // built once: a worker count being typed survives the updates
    const button = (action, label) => el("button", {type: "button", class: "run-" + action,
      onclick: () => runAction(id, action)}, label);
    w.controls.append(el("span", {class: "run-state"}), " ",
      el("label", {}, "workers ", el("input", {type: "number", class: "num run-workers", min: 1, max: 1024,
                                               step: 1, value: 1})), " ",
      button("start", "Start"), button("pause", "Pause"), button("resume", "Resume"), button("stop", "Stop"));
  }
  const state = run.state, going = state === "running" || state === "paused";
  const extra = going ? ` (pid ${run.pid}, ${run.workers} worker${run.workers > 1 ? "s" : ""})`
    : run.message ? `: ${run.message}` : "";
  const text = w.controls.querySelector(".run-state");
  text.textContent = `${run.file}: ${RUN_WORDS[state] || state}${extra}`;
  text.dataset.state = state;
  w.controls.querySelector(".run-start").hidden = going;
  w.controls.querySelector(".run-pause").hidden = state !== "running";
  w.controls.querySelector(".run-resume").hidden = state !== "paused";
  w.controls.querySelector(".run-stop").hidden = !going;
}

async function runAction(id, action) {
  const w = watching[id];
  const buttons = [...w.controls.querySelectorAll("button")];
  buttons.forEach(b => { b.disabled = true; });
  try {
    const workers = Number(w.controls.querySelector(".run-workers").value) || 1;
    watchLive(id, await post(`/api/dbs/${id}/run`, action === "start" ? {action, workers} : {action}));
  } catch (e) { flash(e.message); }
  finally { buttons.forEach(b => { b.disabled = false; }); }
}

function renderLiveGames(box, games) {
  if (!games.length) { box.replaceChildren(); return; }
  box.replaceChildren(el("h3", {}, `Playing now (${games.length})`), ...games.map(liveGame));
}

function liveGame(g) {
  const info = g.game, first = info.first, names = info.side_names;
  const [sente, gote] = g.sente === "a" ? [g.a, g.b] : [g.b, g.a];
  const players = {[first]: sente, [1 - first]: gote};
  const card = el("div", {class: "live-game", "data-pairing": g.pairing, "data-index": g.game_index,
                          "data-plies": g.plies},
    el("div", {class: "live-title"}, `${g.pairing} #${g.game_index} · ${names[0]} ${players[0]} vs ` +
       `${names[1]} ${players[1]} · `, el("span", {class: "live-plies"}, `${g.plies} plies`)));
  if (g.board) {
    const b = g.board, marks = {marks: b.hand_marks, empty: b.hand_empty};
    const top = el("div", {class: "hand"}), board = el("div", {class: "board"}), bottom = el("div", {class: "hand"});
    drawBoard(board, b, {});
    drawHand(top, b.hands ? b.hands[1] : null, 1, marks);
    drawHand(bottom, b.hands ? b.hands[0] : null, 0, marks);
    card.append(el("div", {class: "board-col"}, top, board, bottom));
  }
  const recent = notation(g.labels, g.western).slice(-8);
  card.append(el("ol", {class: "moves live-moves", style: `counter-reset: ply ${g.plies - recent.length}`},
    ...recent.map((m, i) => el("li", {"data-ply": g.plies - recent.length + i + 1}, m))));
  if (g.error) card.append(el("p", {class: "error"}, g.error));
  return card;
}
