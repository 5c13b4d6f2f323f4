"""``python -m komaken``: the command line."""

from komaken.cli import main

if __name__ == "__main__":
    main()
