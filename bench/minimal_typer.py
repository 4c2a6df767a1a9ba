"""The floor for CLI latency: the smallest typer app, run the same way as kingsheet.

With MINIMAL_TYPER_FROZEN=1 it imports typer with the collector set aside as ``kingsheet.cli.main``
does (gc off during the imports, then gc.freeze): the floor with kingsheet's start-up trick, so
that the bench can say how much of kingsheet's ratio that trick alone makes."""

import gc
import os

frozen = os.environ.get("MINIMAL_TYPER_FROZEN") == "1"
if frozen:
    gc.disable()

import typer  # noqa: E402

if frozen:
    gc.freeze()
    gc.enable()

app = typer.Typer()


@app.command()
def main(path: str) -> None:
    typer.echo(path)


if __name__ == "__main__":
    app()
