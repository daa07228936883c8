"""`python -m toolaudit`."""

from .entry import main

main()
