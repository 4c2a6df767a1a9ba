"""`kingsheet serve`: the live sheet on every phone at the table. Needs the ``kingsheet[serve]``
extra (Starlette, uvicorn); imported only by that command."""
