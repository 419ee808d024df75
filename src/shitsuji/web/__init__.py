"""The web app: sign-in, chat with confirmation cards, panels, memories and proposals.

``create_app(backend)`` builds the FastAPI application; ``Backend`` holds the stores and
the model. ``shitsuji serve`` runs it with uvicorn.
"""

from ._accounts import Accounts, WebSession, check_password
from ._app import create_app
from ._backend import Backend
from ._member import Member

__all__ = ["Accounts", "Backend", "Member", "WebSession", "check_password", "create_app"]
