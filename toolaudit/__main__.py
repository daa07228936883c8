"""`python -m toolaudit`."""

from .cli import main

main()
