"""The application layer: what a screen at the table asks of a game (its state, the money, a deal,
a correction, undo, a new game, a file out or in), written once and called by every surface: the
phone page of ``kingsheet serve`` over HTTP, and the phone app of ``kingsheet site`` in its worker."""
