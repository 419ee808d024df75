"""The web app: sign-in, chat with confirmation cards, panels, memories and proposals.

``create_app(backend)`` builds the FastAPI application; ``Backend`` holds the stores and
the model. ``shitsuji serve`` runs it with uvicorn. Names load on first use: setting a
password from the command line needs the accounts, not FastAPI.
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ._accounts import Accounts, WebSession, check_password
    from ._app import create_app
    from ._backend import Backend
    from ._member import Member

__all__ = ["Accounts", "Backend", "Member", "WebSession", "check_password", "create_app"]

__getattr__ = lazy_exports(
    __name__,
    {
        "Accounts": "._accounts",
        "WebSession": "._accounts",
        "check_password": "._accounts",
        "create_app": "._app",
        "Backend": "._backend",
        "Member": "._member",
    },
)
