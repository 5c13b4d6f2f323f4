"""``komaken serve``: a local web page to play any game komaken knows, watch experiments as they
run, browse every stored game and read the reports.  See ``docs/web.md``.

>>> from komaken.web import create_app
>>> app = create_app(dbs=[], variants=[])
"""

from komaken.web.app import create_app

__all__ = ["create_app"]
