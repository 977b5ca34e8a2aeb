"""The errors the SDK raises: one class per error code of the Loom API, all LoomApiError."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Type


@dataclass(frozen=True)
class FieldError:
    """One bad field of a 400 answer: its name and what is wrong with it."""

    field: str
    message: str


class LoomError(Exception):
    """Base of everything this package raises."""


class LoomConnectionError(LoomError):
    """Loom did not answer (refused connection, timeout, DNS): nothing is known to be written."""


class LoomApiError(LoomError):
    """
    An error answer of the API, ``{"error": {"code", "message", "fields"?, "correlation_id"}}``.

    ``code`` is the API's reason (``invalid_input``, ``forbidden``, ...), ``fields`` names each bad
    field of a 400, and ``body`` keeps the whole answer as sent.
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        fields: Optional[List[FieldError]] = None,
        correlation_id: Optional[str] = None,
        body: Optional[Dict[str, Any]] = None,
        op: Optional[str] = None,
    ) -> None:
        self.status = status
        self.code = code
        self.message = message
        self.fields: List[FieldError] = list(fields or [])
        self.correlation_id = correlation_id
        self.body: Dict[str, Any] = dict(body or {})
        self.op = op
        detail = "; ".join(f"{f.field}: {f.message}" for f in self.fields)
        where = f"{op}: " if op else ""
        super().__init__(f"{where}{status} {code}: {message}" + (f" ({detail})" if detail else ""))

    @property
    def reason(self) -> str:
        """The API's error code (``invalid_input``, ``forbidden``, ...)."""
        return self.code

    @property
    def retryable(self) -> bool:
        """Loom wrote nothing and sending the same request again is safe (503)."""
        return self.status == 503


class InvalidInput(LoomApiError):
    """400: bad input; ``fields`` names every bad field, and nothing was written."""


class Unauthorized(LoomApiError):
    """401: missing, unknown or revoked token."""


class Forbidden(LoomApiError):
    """403: the token's role is too low, or the namespace is not the token's."""


class NotFound(LoomApiError):
    """404: unknown op, thread, brief or run."""


class Conflict(LoomApiError):
    """409: the thread already exists, a compare-and-set missed, or a compaction raced a write."""


class PayloadTooLarge(LoomApiError):
    """413: content over 1 MiB."""


class RateLimited(LoomApiError):
    """429: too many calls."""


class NotConfigured(LoomApiError):
    """501: the deployment lacks what the op needs (an LLM for conversation.compact)."""


class Unavailable(LoomApiError):
    """503: storage or a provider is down; nothing was written, and retrying is safe."""


_BY_STATUS: Dict[int, Type[LoomApiError]] = {
    400: InvalidInput,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    413: PayloadTooLarge,
    429: RateLimited,
    501: NotConfigured,
    503: Unavailable,
}


def api_error(status: int, body: Any, op: Optional[str] = None) -> LoomApiError:
    """The exception for an error answer, whatever its body holds (a proxy may send HTML)."""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        error = {}
    raw_fields = error.get("fields")
    fields = [
        FieldError(str(f.get("field", "")), str(f.get("message", "")))
        for f in (raw_fields if isinstance(raw_fields, list) else [])
        if isinstance(f, dict)
    ]
    cls = _BY_STATUS.get(status, LoomApiError)
    return cls(
        status=status,
        code=str(error.get("code", "unknown")),
        message=str(error.get("message", f"HTTP {status}")),
        fields=fields,
        correlation_id=error.get("correlation_id") if isinstance(error.get("correlation_id"), str) else None,
        body=body if isinstance(body, dict) else {},
        op=op,
    )
