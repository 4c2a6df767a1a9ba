"""`kingsheet scan`: a photographed paper blank read back, checked by the rules themselves. The
image reading needs the ``kingsheet[scan]`` extra; the choice among readings (``choose``) needs only
the core."""

import os as _os

# The network reads a page's pieces in batches of 64: too small for BLAS's threads to gain time, and
# they spin while they wait (on this project's machine a photo took 0.71 s of CPU with them, 0.54 s
# without, in the same 0.40 s). Set before numpy is first imported (the commands import this first);
# a caller's own setting stands.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    _os.environ.setdefault(_name, "1")
