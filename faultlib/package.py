"""What this installation of faultlib is: its version and the directory it is installed in.

The lowest room of the house: anything may import it, it imports nothing of ours (so a detector
that needs faultlib's own directory, to tell user frames from ours, does not import the package door).
"""

from __future__ import annotations

import os

__version__ = "0.1.0"

#: the ``faultlib`` package directory (absolute), e.g. ``.../site-packages/faultlib``
PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
