"""`make demo-week`: a shop's week on docs/examples/, told in a shop owner's words (tests/support/shop_week.py;
tests/contract/test_demo_week.py asserts every step of the same story)."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support.shop_week import week


def main() -> None:
    data_dir = Path(tempfile.mkdtemp(prefix="po-week-")) / "shop"
    print(f"Production Orchestrator: a shop's week, shop data in {data_dir}\n")
    week(data_dir)
    print(f"\nLook around: production-orchestrator order list --data-dir {data_dir}")


if __name__ == "__main__":
    main()
