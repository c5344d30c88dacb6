"""The entity graph's write side: finding the entities and relations an entry names.

``extract`` holds the offline rules (jieba's part-of-speech tags for Chinese,
capitalised phrases and the user's own names for English); ``llm`` the prompt and
the tolerant reading of a chat model's answer, used when one is configured. What
is found is stored by the write path in the same transaction as the entry
(``stores.protocols.EntityGraph``); recall reads it in ``retrieval.graph``.
"""

from __future__ import annotations

from .extract import Extractor, extract_rules
from .extraction import Extraction
from .llm import EXTRACTION_PROMPT, parse_extraction

__all__ = ["EXTRACTION_PROMPT", "Extraction", "Extractor", "extract_rules", "parse_extraction"]
