"""`python -m kingsheet.cli`: the command line, as the `kingsheet` script runs it."""

from kingsheet.cli import main

main()
