"""The shipped variant files (TOML); :func:`komaken.shogi.load_variant` reads them by id.

* ``shogi`` (9×9, aliases ``standard``, ``9x9``), ``minishogi`` (5×5, ``5x5``, ``gogo``),
  ``judkins`` (6×6, ``6x6``) — the standard games;
* ``shogi7x7`` — 7×7 shogi for board-size research (inherits ``shogi``);
* ``ctrl5`` … ``ctrl9`` — the controlled family of the piece-values study: minishogi's army on
  5×5 … 9×9 (``ctrl5`` inherits ``minishogi``, the others ``ctrl5``; see
  docs/piece-values-by-board-size.md §1.4), and ``ctrl4``, the same army without the silver on
  4×4 — the study's out-of-sample board;
* ``dobutsu`` — どうぶつしょうぎ on 3×4, its pieces and the try rule given as data.

The schema, inheritance and the resolver are described in docs/rules.md ('Variant files').
"""
