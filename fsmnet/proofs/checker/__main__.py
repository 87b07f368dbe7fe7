"""``python -m fsmnet.proofs.checker CERT.json [NET]``."""

import sys

from . import main

sys.exit(main(sys.argv[1:]))
