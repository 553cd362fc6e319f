"""What one channel's run of a scenario came to: the rendered text or the failure, and the forms the person was shown."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mcp import MCPError

from guide.text import clip, one_line


@dataclass(frozen=True)
class Outcome:
    """The end of one run: rendered `text`, or a failure (`reason` and `fields` from its data, `message` its first line).

    `asked` is the forms shown, each once, in declaration order (None where the
    channel shows none); `skipped` says why the channel could not carry the
    scenario (its outcome is then not compared).
    """

    text: str | None = None
    reason: str | None = None
    fields: tuple[str, ...] = ()
    message: str = ""
    asked: tuple[str, ...] | None = None
    skipped: str | None = None

    @property
    def rendered(self) -> bool:
        """Whether the read rendered."""
        return self.text is not None

    @property
    def key(self) -> tuple[Any, ...]:
        """What two channels must share to agree: the text, or the failure's reason and fields (its message when it has no data)."""
        if self.text is not None:
            return ("text", self.text)
        return ("failure", self.reason, self.fields, self.message if self.reason is None else "")

    def summary(self) -> str:
        """The outcome in a few words, for a report line."""
        if self.skipped is not None:
            return f"not run: {self.skipped}"
        if self.text is not None:
            lines = self.text.count("\n") + (not self.text.endswith("\n"))
            return f"rendered {lines} line{'s' if lines != 1 else ''}"
        if self.reason is None:
            return f"failed: {self.message}"
        fields = f" (fields: {', '.join(self.fields)})" if self.fields else ""
        return f"failed with reason {self.reason}{fields}: {self.message}"

    def as_json(self) -> dict[str, Any]:
        """The outcome as `--format json` shows it."""
        if self.skipped is not None:
            return {"skipped": self.skipped}
        shown: dict[str, Any] = {"text": self.text} if self.text is not None else {
            "failure": {"reason": self.reason, "fields": list(self.fields), "message": self.message}}
        if self.asked is not None:
            shown["asked"] = list(self.asked)
        return shown


def failed(error: MCPError, asked: tuple[str, ...] | None = None) -> Outcome:
    """The outcome of a read that failed with `error` (its data, when it has some, as docs/errors.md documents it)."""
    return from_data(error.error.data, error.error.message, asked)


def from_data(data: Any, message: str, asked: tuple[str, ...] | None = None) -> Outcome:
    """The outcome of a failure with this data (a JSON-RPC error's, or a tool's structured content) and message."""
    first = one_line(clip(message.partition("\n")[0], 300))
    if not isinstance(data, Mapping) or not isinstance(data.get("reason"), str):
        return Outcome(message=first, asked=asked)
    fields = data.get("fields")
    keywords = tuple(str(item.get("keyword")) for item in fields if isinstance(item, Mapping)) if isinstance(fields, Sequence) else ()
    return Outcome(reason=data["reason"], fields=keywords, message=first, asked=asked)


def in_order(asked: Sequence[str], order: Sequence[str]) -> tuple[str, ...]:
    """The forms asked, each once, in declaration order (`order`); a form not declared goes last."""
    rank = {form: index for index, form in enumerate(order)}
    return tuple(sorted(dict.fromkeys(asked), key=lambda form: rank.get(form, len(rank))))
