"""Typed advisor rules: the guide's rules of thumb (corrected where wrong), in zh and en."""

from __future__ import annotations

from pydantic import BaseModel, Field

from gpuwise.catalog.schema import Strict


class Rule(Strict):
    """A rule the planner can cite, with the numbers that made it fire filled into its text.

    `correction_*` says where the guide is wrong and `source` (a source id) backs the correction.
    """

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    guide_section: str
    text_en: str
    text_zh: str
    correction_en: str = ""
    correction_zh: str = ""
    source: str | None = None

    def source_ids(self) -> list[str]:
        """The source behind a correction, if any."""
        return [self.source] if self.source else []


ADVISE_KINDS: dict[str, type[BaseModel]] = {"rule": Rule}
