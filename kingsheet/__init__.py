"""kingsheet: scorekeeping for Кинг (King), the Russian trick-taking card game."""

__version__ = "0.1.0"
