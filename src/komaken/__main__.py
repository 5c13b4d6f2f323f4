"""``python -m komaken``: the command line."""

from komaken.cli import main

main()
