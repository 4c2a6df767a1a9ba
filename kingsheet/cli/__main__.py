"""`python -m kingsheet.cli`: the command line, as the `kingsheet` script runs it."""

from kingsheet.cli.app import main

main()
