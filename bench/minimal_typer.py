"""The floor for CLI latency: the smallest typer app, run the same way as kingsheet."""

import typer

app = typer.Typer()


@app.command()
def main(path: str) -> None:
    typer.echo(path)


if __name__ == "__main__":
    app()
