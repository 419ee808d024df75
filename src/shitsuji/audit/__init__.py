"""The audit log: who changed what, when, and through which channel."""

from ._log import AuditEvent, AuditLog, household_of_scope
from ._schema import AUDIT_SCHEMA

__all__ = ["AUDIT_SCHEMA", "AuditEvent", "AuditLog", "household_of_scope"]
