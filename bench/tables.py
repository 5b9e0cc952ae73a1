"""The benches' result tables: aligned columns for a terminal, or Markdown to paste into bench/README.md."""

from __future__ import annotations


def print_table(
    header: tuple[str, ...], rows: list[tuple[str, ...]], *, markdown: bool, width: int = 16, title: str = ""
) -> None:
    """Every column right-aligned (``width`` characters wide in a terminal), after a blank line and ``title``."""
    if title:
        print(f"\n{title}")
    if markdown:
        print("| " + " | ".join(header) + " |\n|" + "---:|" * len(header))
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        for row in (header, *rows):
            print("  ".join(f"{x:>{width}}" for x in row))
