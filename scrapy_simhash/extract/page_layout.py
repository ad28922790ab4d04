"""A page's layout: the elements its template opens with, as marks that pages of one template
share (a print version or a partner's copy under its own menus does not)."""

from __future__ import annotations

#: At most this many elements of the body's top two levels are read.
LAYOUT_MOST = 200
#: A body with this attribute has no layout of its own (a page rebuilt from an item's text).
NO_LAYOUT = "data-no-layout"


def layout_marks(root) -> list[str]:
    """The paths of the elements in the top two levels of a parsed page's body, each a tag with
    its id and classes ("/div#page.wrap/header.site-header"); the tree is only read."""
    body = root.find("body") if root is not None else None
    if body is None or body.get(NO_LAYOUT) is not None:
        return []
    marks: list[str] = []
    for child in body:
        mark = _mark(child)
        if mark is None:
            continue
        marks.append(mark)
        for grandchild in child:
            inner = _mark(grandchild)
            if inner is not None:
                marks.append(mark + inner)
        if len(marks) >= LAYOUT_MOST:
            return marks[:LAYOUT_MOST]
    return marks


def _mark(element) -> str | None:
    tag = element.tag
    if not isinstance(tag, str):  # comments, processing instructions
        return None
    mark = "/" + tag
    if ident := element.get("id"):
        mark += "#" + ident
    if classes := element.get("class"):
        mark += "." + ".".join(sorted(classes.split()))
    return mark
