"""The real CLI with the real bundled models opens no socket beyond loopback."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

GUARD = textwrap.dedent(
    """
    import ipaddress, os, socket
    _log = os.environ["SHITSUJI_NET_LOG"]
    _orig_connect = socket.socket.connect
    _orig_getaddrinfo = socket.getaddrinfo

    def _outside(host):
        try:
            return not ipaddress.ip_address(host).is_loopback
        except ValueError:
            return host not in ("localhost", "")

    def connect(self, address):
        if not isinstance(address, (str, bytes)) and _outside(address[0]):
            with open(_log, "a") as f:
                f.write(f"connect {address!r}\\n")
            raise OSError("network disabled in this test")
        return _orig_connect(self, address)

    def getaddrinfo(host, *args, **kwargs):
        if host is not None and _outside(host if isinstance(host, str) else host.decode()):
            with open(_log, "a") as f:
                f.write(f"getaddrinfo {host!r}\\n")
            raise OSError("network disabled in this test")
        return _orig_getaddrinfo(host, *args, **kwargs)

    socket.socket.connect = connect
    socket.getaddrinfo = getaddrinfo
    """
)


@pytest.mark.parametrize("embedder", ["use", "e5"])
def test_demo_with_real_models_stays_offline(tmp_path: Path, embedder: str) -> None:
    (tmp_path / "sitecustomize.py").write_text(GUARD, encoding="utf-8")
    log = tmp_path / "net.log"
    env = {
        **os.environ,
        "PYTHONPATH": str(tmp_path),
        "SHITSUJI_NET_LOG": str(log),
        "HOME": str(tmp_path),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "shitsuji", "--embedder", embedder, "demo"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "duplicate=True" in proc.stdout
    assert not log.exists(), log.read_text()
