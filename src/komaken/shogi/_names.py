"""The names of the pieces, one table per language, by SFEN letter (``"+P"`` for a promoted pawn).

* :data:`KANJI` — one character each, as diagrams and pieces on a board show them (杏 圭 全);
* :data:`KANJI_MOVE` — as move text writes them (成香 成桂 成銀, KIF/KI2);
* :data:`ENGLISH` — the English names.
"""

from __future__ import annotations

KANJI = {
    "P": "歩", "L": "香", "N": "桂", "S": "銀", "G": "金", "B": "角", "R": "飛", "K": "玉",
    "+P": "と", "+L": "杏", "+N": "圭", "+S": "全", "+B": "馬", "+R": "龍",
}  # fmt: skip
KANJI_MOVE = {**KANJI, "+L": "成香", "+N": "成桂", "+S": "成銀"}
ENGLISH = {
    "P": "pawn", "L": "lance", "N": "knight", "S": "silver", "G": "gold", "B": "bishop", "R": "rook",
    "K": "king", "+P": "tokin", "+L": "promoted lance", "+N": "promoted knight", "+S": "promoted silver",
    "+B": "horse", "+R": "dragon",
}  # fmt: skip

__all__ = ["ENGLISH", "KANJI", "KANJI_MOVE"]
