// The piece-set chooser in the header: ?pieces=NAME, else the last choice (localStorage), else the
// server's default.  A set the server does not know is named in the flash message and the page
// falls back to the remembered or default set.  A change redraws the boards ("pieces" event).
"use strict";

const PIECE_KEY = "komaken.pieces";
// storage may be refused (a private window's settings): then the choice lasts for the page only
const pieceStore = {
  get() { try { return localStorage.getItem(PIECE_KEY); } catch (e) { return null; } },
  set(v) { try { localStorage.setItem(PIECE_KEY, v); } catch (e) { /* kept for this page */ } },
};

async function fetchPieceSet(name) {
  const r = await fetch(`/api/pieces/${encodeURIComponent(name)}`);
  const data = await r.json().catch(() => ({error: `HTTP ${r.status}`}));
  if (!r.ok) throw new Error(data.error || `HTTP ${r.status}`);
  return data;
}

async function choosePieceSet(name, remember) {
  usePieceSet(await fetchPieceSet(name));
  if (remember) pieceStore.set(name);
  document.querySelector("#piece-set").value = name;
  document.body.dataset.pieces = name;
  window.dispatchEvent(new Event("pieces"));
}

async function initPieces() {
  const sel = document.querySelector("#piece-set");
  const {sets, default: fallback} = await (await fetch("/api/pieces")).json();
  const words = {builtin: "built-in (kanji)", international: "international (letters)", font: "system font"};
  sel.replaceChildren(...sets.map(s => Object.assign(document.createElement("option"), {value: s,
    textContent: words[s] || s})));
  sel.addEventListener("change", () => choosePieceSet(sel.value, true).catch(e => flash(e.message)));
  const asked = new URLSearchParams(location.search).get("pieces");
  const kept = pieceStore.get();
  if (asked) {
    try { await choosePieceSet(asked, true); return; } catch (e) { flash(e.message); }
  }
  try { await choosePieceSet(kept && sets.includes(kept) ? kept : fallback, false); }
  catch (e) { flash(e.message); }
}

// moves in the chosen set's notation: with the international set the server's Western letters
// (shogi: Hodges, ▲P-7f, ranks a… as the board names them), else the labels (▲７六歩)
function notation(labels, western) {
  const on = document.body.dataset.pieces === "international";
  return on && western && western.length === labels.length ? western : labels;
}

initPieces();
