"""`python -m production_orchestrator serve` as a subprocess for tests, its log captured to a file."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from urllib.request import urlopen

from tests.support.clidriver import command, env


class Served:
    def __init__(self, data_dir: Path, port: int) -> None:
        self.data_dir = data_dir
        self.port = port
        self.log = data_dir.parent / "serve.log"
        self.process = subprocess.Popen(
            command("serve", "--data-dir", str(data_dir), "--port", str(port)),
            stdout=subprocess.DEVNULL,
            stderr=self.log.open("w"),
            env=env(),
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                with urlopen(f"http://127.0.0.1:{port}/", timeout=2):
                    return
            except OSError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise AssertionError(f"serve did not come up: {self.log.read_text()}") from None
                time.sleep(0.1)

    def stop(self) -> str:
        self.process.terminate()
        self.process.wait(timeout=10)
        return self.log.read_text()
