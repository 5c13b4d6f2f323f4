// komaken board component: draws a game's board JSON (komaken.presentation) as SVG (no libraries).
// drawBoard(el, board, opts) — opts: {flip, selected, targets: Set of square ids, onSquare(id, how),
// dragFrom(id) -> bool}. Hands are drawn with drawHand(el, pieces, side, opts).
// It knows no game: a board is cells (id, piece, shade) in rows drawn as board.look says (cell size,
// colours, piece shape), and every game's moves are "from a square (or the hand) to a square",
// told apart by a choice when several share both.
// Labels are drawn in the chosen piece set (komaken.web.pieces, GET /api/pieces/NAME): outlines as
// <path>s when the set has every character of a label, so no system font is needed, else <text>.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const PIECES = {name: "font", glyphs: {}};

function usePieceSet(set) {
  PIECES.name = set.name;
  PIECES.glyphs = set.glyphs || {};
}

// `text` centred on (cx, cy), `size` px to the em: the set's outlines side by side, or text
function labelEl(text, cx, cy, size, attrs) {
  const chars = [...String(text)], k = size / 1000;
  if (!chars.length || !chars.every(c => PIECES.glyphs[c])) {
    return svgEl("text", {...attrs, x: cx, y: cy + size * 0.36, "font-size": size, "text-anchor": "middle"}, text);
  }
  const gap = size * 0.04, widths = chars.map(c => PIECES.glyphs[c].w * k);
  let x = cx - (widths.reduce((a, b) => a + b, 0) + gap * (chars.length - 1)) / 2;
  const sw = attrs && attrs["stroke-width"];
  const g = svgEl("g", {...attrs, "stroke-width": sw ? sw / k : 0, class: ((attrs && attrs.class) || "") + " glyphs"});
  chars.forEach((c, i) => {
    g.appendChild(svgEl("path", {d: PIECES.glyphs[c].d, transform: `translate(${x + widths[i] / 2} ${cy}) scale(${k})`,
                                 "data-char": c}));
    x += widths[i] + gap;
  });
  return g;
}

function svgEl(tag, attrs, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function drawBoard(el, board, opts) {
  opts = opts || {};
  const look = board.look, shape = look.shape;
  const st = {cell: look.cell, bg: look.background, line: look.line, dark: look.dark, thin: !look.grid};
  const coords = board.files.length || board.ranks.length;
  const W = board.width, H = board.height, S = st.cell, M = coords ? 22 : 6;
  const svg = svgEl("svg", {viewBox: `0 0 ${W * S + 2 * M} ${H * S + 2 * M}`, class: "board-svg board-" + shape,
                            width: W * S + 2 * M, height: H * S + 2 * M});
  svg.appendChild(svgEl("rect", {x: M, y: M, width: W * S, height: H * S, fill: st.bg, stroke: st.line, "stroke-width": 2}));
  const last = board.last || {};
  const order = [...board.cells.keys()];
  if (opts.flip) order.reverse();
  order.forEach((ci, k) => {
    const cell = board.cells[ci], col = k % W, row = Math.floor(k / W);
    const x = M + col * S, y = M + row * S;
    const g = svgEl("g", {"data-sq": cell.id, class: "sq"});
    let fill = cell.shade && st.dark ? st.dark : "transparent";
    if (cell.id === last.to || cell.id === last.from) fill = "rgba(255, 200, 0, 0.45)";
    if (cell.id === board.check) fill = "rgba(230, 30, 30, 0.55)";
    if (cell.id === opts.selected) fill = "rgba(60, 120, 255, 0.45)";
    g.appendChild(svgEl("rect", {x, y, width: S, height: S, fill, stroke: st.thin ? "none" : st.line, "stroke-width": 1}));
    if (fill !== "transparent" && cell.shade && st.dark && fill !== st.dark) {  // a marked dark square stays darker
      g.appendChild(svgEl("rect", {x, y, width: S, height: S, fill: "rgba(0, 0, 0, 0.12)", "pointer-events": "none"}));
    }
    if (cell.piece) g.appendChild(pieceEl(shape, cell.piece, x + S / 2, y + S / 2, S, opts.flip, board.moves));
    if (opts.targets && opts.targets.has(cell.id)) {
      g.appendChild(svgEl("circle", {cx: x + S / 2, cy: y + S / 2, r: cell.piece ? S * 0.44 : S * 0.13,
        fill: cell.piece ? "none" : "rgba(20, 60, 200, 0.55)", stroke: "rgba(20, 60, 200, 0.7)",
        "stroke-width": cell.piece ? 3 : 0, class: "target"}));
    }
    svg.appendChild(g);
  });
  const files = opts.flip ? [...board.files].reverse() : board.files;
  // the international set names shogi's ranks a, b, c … as USI and Western notation do
  const western = PIECES.name === "international" && shape === "koma";
  const rankNames = western ? board.ranks.map((_, i) => "abcdefghijklmnopqrstuvwxyz"[i]) : board.ranks;
  const ranks = opts.flip ? [...rankNames].reverse() : rankNames;
  files.forEach((f, i) => svg.appendChild(labelEl(f, M + i * S + S / 2, M - 11, 13, {class: "coord"})));
  ranks.forEach((r, i) => svg.appendChild(labelEl(r, M + W * S + 11, M + i * S + S / 2, 13, {class: "coord"})));
  el.replaceChildren(svg);
  attachInput(svg, opts);
}

function pieceEl(shape, p, cx, cy, S, flip, moves) {
  if (shape === "disc") {
    return svgEl("circle", {cx, cy, r: S * 0.4, fill: p.side === 0 ? "#111" : "#f4f4f4", stroke: "#000", class: "piece"});
  }
  if (shape === "glyph") {  // solid figurines, filled by side (side 1 is white)
    return labelEl(p.label, cx, cy, S * 0.82, {class: "piece",
      fill: p.side === 1 ? "#fff" : "#111", stroke: "#111", "stroke-width": p.side === 1 ? 1.4 : 0.6,
      "font-family": "'DejaVu Sans', 'Segoe UI Symbol', sans-serif"});
  }
  if (shape === "mark") {
    return labelEl(p.label, cx, cy, S * 0.62, {fill: p.side === 0 ? "#b3261e" : "#1e4fb3", class: "piece"});
  }
  const up = (p.side === 1) !== !!flip;  // the piece points at the viewer's opponent
  const g = svgEl("g", {class: "piece", transform: up ? `rotate(180 ${cx} ${cy})` : ""});
  const w = S * 0.74, h = S * 0.84, top = cy - h / 2;
  const pts = [[cx, top], [cx + w * 0.36, top + h * 0.16], [cx + w / 2, cy + h / 2], [cx - w / 2, cy + h / 2],
               [cx - w * 0.36, top + h * 0.16]].map(q => q.join(",")).join(" ");
  g.appendChild(svgEl("polygon", {points: pts, fill: "#fbe7b5", stroke: "#7a5a24", "stroke-width": 1}));
  g.appendChild(komaLabel(p, cx, cy + S * 0.03, S));
  if (PIECES.name === "international" && moves && moves[p.kind]) g.appendChild(moveMarks(moves[p.kind], cx, cy, S));
  return g;
}

// where a piece goes, for newcomers: a dot per step, a bar per slide, a ring per knight's jump
function moveMarks(m, cx, cy, S) {
  const g = svgEl("g", {class: "moves-marks", fill: "#5a3d12", stroke: "#5a3d12", "stroke-linecap": "round"});
  const out = (x, y, r) => { const n = Math.hypot(x, y); return [cx + x / n * S * r * 0.8, cy + S * 0.03 + y / n * S * r]; };
  for (const [x, y] of m.steps) {
    const [px, py] = out(x, y, Math.hypot(x, y) > 1.5 ? 0.37 : 0.33);
    g.appendChild(svgEl("circle", Math.hypot(x, y) > 2 ? {cx: px, cy: py, r: S * 0.04, fill: "none", "stroke-width": 1.2}
      : {cx: px, cy: py, r: S * 0.04, stroke: "none"}));
  }
  for (const [x, y] of m.slides) {
    const [x0, y0] = out(x, y, 0.27), [x1, y1] = out(x, y, 0.39);
    g.appendChild(svgEl("line", {x1: x0, y1: y0, x2: x1, y2: y1, "stroke-width": S * 0.05}));
  }
  return g;
}

// the face of a shogi piece: its kanji, or in the international set its letter (promoted: red, with +)
function komaLabel(p, cx, cy, S) {
  const fill = p.promoted ? "#c0161b" : "#111";
  if (PIECES.name !== "international" || !p.letter) {
    return labelEl(p.label, cx, cy, S * 0.46, {fill, "font-family": "serif"});
  }
  const g = svgEl("g", {}), shift = p.promoted ? S * 0.08 : 0;
  g.appendChild(labelEl(p.letter, cx + shift, cy + S * 0.02, S * (p.promoted ? 0.44 : 0.5),
                        {fill, "font-family": "sans-serif", "font-weight": 700}));
  if (p.promoted) g.appendChild(labelEl("+", cx - S * 0.16, cy + S * 0.02, S * 0.3, {fill, "font-family": "sans-serif"}));
  return g;
}

function attachInput(svg, opts) {
  if (!opts.onSquare) return;
  let drag = null;
  const squareAt = (ev) => {
    const t = document.elementFromPoint(ev.clientX, ev.clientY);
    const g = t && t.closest ? t.closest("[data-sq]") : null;
    return g ? g.getAttribute("data-sq") : null;
  };
  svg.addEventListener("pointerdown", (ev) => {
    const g = ev.target.closest("[data-sq]");
    if (!g) return;
    const id = g.getAttribute("data-sq");
    const piece = g.querySelector(".piece");
    if (piece && opts.dragFrom && opts.dragFrom(id)) {
      drag = {id, piece, x: ev.clientX, y: ev.clientY, moved: false};
      svg.setPointerCapture(ev.pointerId);
    }
    ev.preventDefault();
  });
  svg.addEventListener("pointermove", (ev) => {
    if (!drag) return;
    const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    if (!drag.moved && Math.hypot(dx, dy) < 6) return;
    if (!drag.moved) opts.onSquare(drag.id, "drag-start");
    drag.moved = true;
    const ctm = svg.getScreenCTM();
    const k = ctm ? 1 / ctm.a : 1;
    const base = drag.piece.getAttribute("transform") || "";
    drag.piece.setAttribute("transform", `translate(${dx * k} ${dy * k}) ${base}`);
    drag.piece.style.pointerEvents = "none";
  });
  svg.addEventListener("pointerup", (ev) => {
    const d = drag;
    drag = null;
    if (d) d.piece.style.pointerEvents = "";
    const to = squareAt(ev);
    if (d && d.moved) {
      opts.onSquare(to && to !== d.id ? to : d.id, to && to !== d.id ? "drop" : "cancel");
      return;
    }
    if (to) opts.onSquare(to, "click");
  });
}

// the pieces in one side's hand, as buttons (opts: selected, side, canDrop, onHand, marks, empty)
function drawHand(el, pieces, side, opts) {
  el.replaceChildren();
  if (!pieces) { el.hidden = true; return; }
  el.hidden = false;
  el.setAttribute("data-side", side);
  const mark = document.createElement("span");
  mark.className = "hand-mark";
  const markText = (opts.marks || ["▲", "△"])[side];
  mark.appendChild(inlineLabel(markText, 24, (c) => labelEl(markText, c, c, 20, {fill: "currentColor"})));
  el.appendChild(mark);
  if (!pieces.length) {
    const none = document.createElement("span");
    none.className = "hand-none";
    const empty = opts.empty || "-";
    none.appendChild(inlineLabel(empty, 20, (c) => labelEl(empty, c * [...empty].length, c, 15, {fill: "currentColor"}),
                                 [...empty].length));
    el.appendChild(none);
  }
  for (const p of pieces) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "hand-piece" + (opts.selected === "hand:" + p.kind && opts.side === side ? " selected" : "");
    b.setAttribute("data-kind", p.kind);
    b.appendChild(inlineLabel(p.label, 26, (c) => komaLabel({...p, promoted: false}, c, c, 48)));
    if (p.n > 1) b.append(String(p.n));
    b.disabled = !opts.canDrop;
    if (opts.onHand) b.addEventListener("click", () => opts.onHand(p.kind));
    el.appendChild(b);
  }
}

// a label for HTML (hands): a small SVG drawing `draw()` when the set has outlines, else text
function inlineLabel(text, px, draw, chars) {
  const face = draw(px / 2), w = px * (chars || 1);
  if (face.tagName === "text" || !face.querySelector("path")) {
    const span = document.createElement("span");
    span.textContent = text;
    return span;
  }
  const svg = svgEl("svg", {viewBox: `0 0 ${w} ${px}`, width: w, height: px, class: "glyph-svg"});
  svg.appendChild(face);
  return svg;
}
