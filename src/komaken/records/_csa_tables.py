"""Tables the CSA reader and writer share: piece names and header keys."""

from __future__ import annotations

CSA_KIND = {"FU": "P", "KY": "L", "KE": "N", "GI": "S", "KI": "G", "KA": "B", "HI": "R", "OU": "K",
            "TO": "+P", "NY": "+L", "NK": "+N", "NG": "+S", "UM": "+B", "RY": "+R"}
CSA_NAME = {v: k for k, v in CSA_KIND.items()}
_HEADER_KEYS = {"EVENT": "棋戦", "SITE": "場所", "TIME_LIMIT": "持ち時間", "OPENING": "戦型", "END_TIME": "終了日時"}
_JAPANESE_KEYS = {v: k for k, v in _HEADER_KEYS.items()}
