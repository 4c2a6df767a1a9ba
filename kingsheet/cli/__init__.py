"""The command line: the typer app, the prompt, batch checks. May import everything."""
