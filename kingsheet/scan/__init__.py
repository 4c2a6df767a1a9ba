"""`kingsheet scan`: a photographed paper blank read back, checked by the rules themselves. The
image reading needs the ``kingsheet[scan]`` extra; the choice among readings (``choose``) needs only
the core."""
