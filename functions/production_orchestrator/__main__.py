"""``python -m production_orchestrator``."""

import sys

from .cli import main

sys.exit(main())
