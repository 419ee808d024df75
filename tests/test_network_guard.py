import socket

import pytest


def test_outside_addresses_are_refused() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s, pytest.raises(RuntimeError, match="network"):
        s.connect(("192.0.2.1", 443))


def test_loopback_is_allowed() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as client:
            client.connect(server.getsockname())
            conn, _ = server.accept()
            with conn:
                client.sendall("ただいま".encode())
                assert conn.recv(64).decode() == "ただいま"  # the guard let a real connection through
