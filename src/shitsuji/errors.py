"""Errors raised by shitsuji.

Every failure a user can cause or meet derives from ``ShitsujiError`` and carries a
message that says what to do next. The CLI prints that message on one line and exits
non-zero; library callers can catch the precise class.

    ShitsujiError
    ├── UserInputError          bad text, scope, category, importance, file line …
    │   ├── ImportFileError     a malformed JSONL line (names the line number)
    │   └── Refusal             one with a key of the apps' words tables (said in the member's language)
    ├── NotFoundError           no memory with that id
    ├── StoreError              the database cannot be used
    │   ├── StoreLockedError    another process holds the write lock too long
    │   └── SchemaTooNewError   the database was written by a newer shitsuji
    ├── EmbedderError           the embedding model failed or is not installed
    └── ModelError              the language model API failed
        ├── ModelUnavailableError   it stayed down, overloaded or silent after retries
        └── ModelRequestError       it refused the request (auth, bad request, too large)
"""

from __future__ import annotations


class ShitsujiError(Exception):
    """Base class of every error shitsuji raises on purpose."""


class UserInputError(ShitsujiError, ValueError):
    """The caller passed something shitsuji cannot accept."""


class ImportFileError(UserInputError):
    """A line of an import file could not be read."""

    def __init__(self, message: str, *, line: int, imported: int) -> None:
        super().__init__(message)
        self.line = line
        self.imported = imported


class Refusal(UserInputError):
    """A refusal a page can put in its member's language: ``key`` (and ``values``) in the web's words
    tables; the English text is what the API and logs say. Raised below the web layer too (a panel
    action's rule), so it lives here rather than with the pages."""

    def __init__(self, key: str, english: str, **values: object) -> None:
        super().__init__(english)
        self.key = key
        self.values = values


class NotFoundError(ShitsujiError, LookupError):
    """No record matches the given id."""


class StoreError(ShitsujiError):
    """The database cannot be opened or written."""


class StoreLockedError(StoreError):
    """The database stayed locked by another writer past the busy timeout."""


class SchemaTooNewError(StoreError):
    """The database schema is newer than this version of shitsuji understands."""


class EmbedderError(ShitsujiError):
    """The embedding model is missing or failed."""


class ModelError(ShitsujiError):
    """The language model could not produce a response."""


class ModelUnavailableError(ModelError):
    """The model API stayed unreachable, overloaded or too slow after retries."""


class ModelRequestError(ModelError):
    """The model API refused the request; retrying the same request will not help."""


__all__ = [
    "EmbedderError",
    "ImportFileError",
    "ModelError",
    "ModelRequestError",
    "ModelUnavailableError",
    "NotFoundError",
    "Refusal",
    "SchemaTooNewError",
    "ShitsujiError",
    "StoreError",
    "StoreLockedError",
    "UserInputError",
]
