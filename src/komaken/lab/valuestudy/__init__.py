"""The piece-values study: how much each shogi piece is worth, in golds, on boards of any size.

* :mod:`~komaken.lab.valuestudy.selfplay` — engine-vs-engine games played whole in a numba kernel,
  a kind of the lab runner's work (``selfplay``), stored with per-position material features in
  the lab's results database (:mod:`~komaken.lab.valuestudy.games`);
* :mod:`~komaken.lab.valuestudy.fit` — method A, a logistic regression of the result on material
  with a whole-game bootstrap;
* :mod:`~komaken.lab.valuestudy.odds` — method B, material-odds games run by the lab;
* :mod:`~komaken.lab.valuestudy.report` — tables and plots against board size.

See ``docs/piece-values-by-board-size.md``.
"""
