"""What KIF and KI2 share: header lines, 手合割, the BOD board diagram, the closing まで line."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from komaken.errors import KomakenError
from komaken.game import Color, Outcome, Termination
from komaken.records.record import GameRecord, RecordError, bounded_int, shown, summary_line, variant_for_size
from komaken.shogi._names import KIND_OF_NAME
from komaken.shogi.display import KANSUJI, hand_text, japanese_diagram
from komaken.shogi.notation import parse_japanese
from komaken.shogi.position import Position
from komaken.shogi.variant import MINISHOGI, SHOGI, Variant

#: 手合割 names and their start positions (the handicapped side, 上手 = white, moves first)
HANDICAPS = {
    "平手": SHOGI.start_sfen,
    "香落ち": "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "右香落ち": "1nsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "角落ち": "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "飛車落ち": "lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "飛香落ち": "lnsgkgsn1/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "二枚落ち": "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "三枚落ち": "lnsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "四枚落ち": "1nsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "五枚落ち": "2sgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "左五枚落ち": "1nsgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "六枚落ち": "2sgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "左七枚落ち": "2sgkg3/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "右七枚落ち": "3gkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "八枚落ち": "3gkg3/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    "十枚落ち": "4k4/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
}
_VARIANT_HANDICAPS = {"５五将棋": MINISHOGI, "5五将棋": MINISHOGI, "55将棋": MINISHOGI}
TIME_FORMAT = "%Y/%m/%d %H:%M:%S"


def parse_time(value: str) -> datetime | None:
    for fmt in (TIME_FORMAT, "%Y/%m/%d %H:%M", "%Y/%m/%d", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S"):
        try:
            return datetime.strptime(value.strip(), fmt)
        except ValueError:
            pass
    return None


def kansuji_value(text: str) -> int:
    """``二`` → 2, ``十八`` → 18, ``18`` → 18."""
    if text.isascii() and text.isdigit():
        return int(text)
    text = text.translate(_WIDE_DIGITS)
    if text.isascii() and text.isdigit():
        return int(text)
    digits = "〇一二三四五六七八九"
    if "十" in text:
        tens, _, ones = text.partition("十")
        return (digits.index(tens) if tens else 1) * 10 + (digits.index(ones) if ones else 0)
    return digits.index(text)


_WIDE_DIGITS = str.maketrans("０１２３４５６７８９", "0123456789")


def parse_hand(text: str, line: int | None = None, reading: dict[str, str] = KIND_OF_NAME) -> dict[str, int]:
    """``角　歩二`` → ``{"B": 1, "P": 2}`` (``なし`` → ``{}``); a count is 1 to 99; ``reading``
    maps piece names to letters (a variant's ``names.reading`` when it names its pieces)."""
    hand: dict[str, int] = {}
    text = text.strip()
    if text in ("", "なし"):
        return hand
    for item in re.split(r"[\s　、,]+", text):
        if not item:
            continue
        kind = reading.get(item[0])
        if kind is None or kind in ("K",) or kind.startswith("+"):
            raise RecordError(f"{item[0]!r} cannot be in hand", line=line)
        count = item[1:].translate(_WIDE_DIGITS)
        if count.isascii() and count.isdigit():
            n = bounded_int(count, 1, 99, f"the count of {item[0]} in hand", line=line)
        else:
            try:
                n = kansuji_value(count) if count else 1
            except ValueError:
                raise RecordError(f"bad count in {shown(item)!r}", line=line) from None
        if not 1 <= n <= 99:
            raise RecordError(f"the count of {item[0]} in hand {shown(item[1:])} is out of range (1 to 99)", line=line)
        hand[kind] = hand.get(kind, 0) + n
    return hand


@dataclass
class Board:
    """A BOD diagram being read (the hands as written, with their line: the variant, known once
    the board is read, says how its pieces are named)."""

    rows: list[str] = field(default_factory=list)
    hands: dict[Color, tuple[str, int]] = field(default_factory=dict)
    turn: Color | None = None
    first_line: int = 0

    def sfen(self, given: Variant | None, where: str) -> tuple[Variant, str]:
        if not self.rows:
            raise RecordError(f"{where}: a board diagram without rows")
        cells_per_row = []
        for row in self.rows:
            body = row[1: row.rindex("|")]
            if len(body) % 2:
                raise RecordError(f"{where}: board row {row!r} is not 2 characters per square")
            cells_per_row.append([body[i: i + 2] for i in range(0, len(body), 2)])
        width = len(cells_per_row[0])
        if any(len(c) != width for c in cells_per_row):
            raise RecordError(f"{where}: board rows of different widths")
        variant = variant_for_size(width, len(self.rows), given, where)
        reading = variant.names.reading
        ranks = []
        for cells in cells_per_row:
            out, empty = "", 0
            for cell in cells:
                if cell[1] in "・ 　":
                    empty += 1
                    continue
                kind = reading.get(cell[1])
                if kind is None:
                    raise RecordError(f"{where}: unknown piece {cell[1]!r} in the board diagram")
                if empty:
                    out, empty = out + str(empty), 0
                out += kind.lower() if cell[0] in "vV" else kind
            ranks.append(out + (str(empty) if empty else ""))
        hands = ""
        for color in (Color.BLACK, Color.WHITE):
            text, line = self.hands.get(color, ("", 0))
            for kind, n in parse_hand(text, line or None, reading).items():
                hands += (str(n) if n > 1 else "") + (kind if color == Color.BLACK else kind.lower())
        side = "w" if self.turn == Color.WHITE else "b"
        return variant, f"{'/'.join(ranks)} {side} {hands or '-'} 1"


def initial_position(record: GameRecord, board: Board | None, handicap: str | None,
                     given: Variant | None, line: int) -> None:
    """Set the record's variant and initial SFEN from a diagram, a 手合割 or the default
    (errors name ``line``, where the moves begin)."""
    try:
        _initial_position(record, board, handicap, given)
    except RecordError as exc:
        raise RecordError(exc.reason, line=exc.line or line or None) from None
    except KomakenError as exc:
        raise RecordError(f"bad starting position: {exc}", line=line or None) from None


def _initial_position(record: GameRecord, board: Board | None, handicap: str | None, given: Variant | None) -> None:
    if board is not None and board.rows:
        record.variant, sfen = board.sfen(given, "board diagram")
        record.initial_sfen = Position.from_sfen(sfen, record.variant, composed=True).sfen()
        return
    if handicap and handicap not in ("その他",):
        if handicap in _VARIANT_HANDICAPS:
            record.variant = _VARIANT_HANDICAPS[handicap]
            record.initial_sfen = record.variant.start_sfen
            return
        if handicap not in HANDICAPS:
            raise RecordError(f"unknown 手合割 {handicap!r}")
        record.variant = SHOGI
        record.initial_sfen = HANDICAPS[handicap]
        return
    record.variant = given or SHOGI
    record.initial_sfen = record.variant.start_sfen


def handicap_name(record: GameRecord) -> str | None:
    """The 手合割 name of the record's start, if it has one."""
    if record.variant.name != "shogi":
        return None
    head = record.initial_sfen.split()[:3]
    for name, sfen in HANDICAPS.items():
        if sfen.split()[:3] == head:
            return name
    return None


def bod(position: Position) -> str:
    """The BOD diagram KIF and KI2 embed for other starts (``後手番`` when white moves first)."""
    lines = japanese_diagram(position).split("\n")
    lines[-1] = "後手番" if position.turn == Color.WHITE else ""
    if not lines[-1]:
        lines.pop()
    lines[0] = f"後手の持駒：{hand_text(position.hand(Color.WHITE), position.variant.names)}"
    return "\n".join(lines)


def illegal_move_text(position: Position, text: str, *, origin: bool) -> str | None:
    """``text`` of a final illegal move as a move line can say it (``origin=False``: KI2, without the
    ``(77)``), if reading it back in ``position`` finds it illegal again; else None (write it as a
    comment: a CSA move, or a KIF move that would be legal without its origin)."""
    text = text.strip()
    if not origin:
        text = re.sub(r"\(.*", "", text)
    try:
        parse_japanese(position, text)
    except KomakenError as exc:
        return text if " is illegal" in str(exc) else None
    return None


def _writable_key(key: str) -> bool:
    """A header KIF can say: a key with no ``：``, not one a KIF line would read as something else."""
    key = key.strip()
    return bool(key) and "：" not in key and not key.startswith(("*", "#", "&", "まで", "|", "変化", *"▲△☗☖▼▽")) and \
        not key[0].isdigit() and not key.endswith(("持駒", "持ち駒", "手番"))


def header_lines(record: GameRecord) -> list[str]:
    """Headers, 手合割 or diagram, and players, as KIF and KI2 write them."""
    out = []
    if record.start_time:
        out.append(f"開始日時：{record.start_time.strftime(TIME_FORMAT)}")
    for key, value in record.headers.items():
        if key not in ("開始日時", "手合割", "先手", "後手", "下手", "上手") and _writable_key(key):
            out.append(f"{key}：{value}")
    name = handicap_name(record)
    if name:
        out.append(f"手合割：{name}")
    else:
        out.append(bod(record.initial_position()))
    handicapped = name not in (None, "平手")
    if record.black is not None:
        out.append(f"{'下手' if handicapped else '先手'}：{record.black}")
    if record.white is not None:
        out.append(f"{'上手' if handicapped else '後手'}：{record.white}")
    if record.comment:
        out += ["*" + line for line in record.comment.split("\n")]
    return out


_HEADER_RE = re.compile(r"^([^：]+)：(.*)$")
BOARD_ROW_RE = re.compile(r"^\|.*\|")


def read_header(line: str, record: GameRecord, board: Board, lineno: int, where: str) -> str | None:
    """Read a header or diagram line into ``record``/``board``; returns the 手合割 if the line
    names one.  Returns ``""`` when the line was consumed, ``None`` when it is not a header."""
    if BOARD_ROW_RE.match(line):
        if not board.rows:
            board.first_line = lineno
        board.rows.append(line)
        return ""
    stripped = line.strip()
    if re.fullmatch(r"[+\-]+", stripped) or re.fullmatch(r"[\s１-９0-9]+", stripped):
        return ""  # the diagram's frame and file numbers
    if stripped in ("先手番", "下手番"):
        board.turn = Color.BLACK
        return ""
    if stripped in ("後手番", "上手番"):
        board.turn = Color.WHITE
        return ""
    if "＝" in stripped and "：" not in stripped:
        return ""  # Kifu for Windows' 手数＝N line of a diagram (the moves are numbered anyway)
    m = _HEADER_RE.match(stripped)
    if not m:
        return None
    key, value = m[1].strip(), m[2].strip()
    if key in ("先手の持駒", "下手の持駒", "後手の持駒", "上手の持駒", "先手の持ち駒", "後手の持ち駒"):
        color = Color.BLACK if key[0] in "先下" else Color.WHITE
        board.hands[color] = (value, lineno)
        if not board.rows:
            board.first_line = lineno
    elif key in ("手番",):
        board.turn = Color.WHITE if value.startswith(("後", "上")) else Color.BLACK
    elif key in ("先手", "下手"):
        record.black = value
    elif key in ("後手", "上手"):
        record.white = value
    elif key == "開始日時":
        record.start_time = parse_time(value)
        if record.start_time is None:
            record.headers[key] = value
    elif key == "手合割":
        return value
    else:
        record.headers[key] = value
    return ""


_SUMMARY_RE = re.compile(
    r"^まで(\d+)手(?:で|に)?\s*(?:(?:(先手|後手|下手|上手)の(勝ち|反則勝ち|反則負け|入玉勝ち|宣言勝ち))|"
    r"(?:時間切れにより(先手|後手|下手|上手)の勝ち)|(千日手|持将棋|中断|封じ手|詰み|詰|不詰))"
)


def is_summary(line: str) -> bool:
    return line.strip().startswith("まで")


def parse_summary(line: str, position: Position) -> Outcome | None:
    """The result a ``まで76手で先手の勝ち`` line states (a mate on the board makes it 詰み)."""
    m = _SUMMARY_RE.match(line.strip())
    if not m:
        return None
    if m[5]:
        if m[5] in ("詰み", "詰"):
            return Outcome(Termination.CHECKMATE, position.turn.other)
        t = {"千日手": Termination.REPETITION, "持将棋": Termination.IMPASSE}.get(m[5], Termination.ABORTED)
        return Outcome(t, None)
    who = m[2] or m[4]
    winner = Color.BLACK if who in ("先手", "下手") else Color.WHITE
    if m[4]:
        return Outcome(Termination.TIME_FORFEIT, winner)
    how = m[3]
    if how == "反則負け":
        return Outcome(Termination.ILLEGAL_MOVE, winner.other)
    if how == "反則勝ち":
        return Outcome(Termination.ILLEGAL_MOVE, winner)
    if how in ("入玉勝ち", "宣言勝ち"):
        return Outcome(Termination.DECLARATION, winner)
    if position.is_checkmate():
        return Outcome(Termination.CHECKMATE, winner)
    return Outcome(Termination.RESIGNATION, winner)


__all__ = ["HANDICAPS", "Board", "KANSUJI", "bod", "handicap_name", "header_lines", "initial_position",
           "is_summary", "parse_summary", "read_header", "summary_line"]
