# cython: language_level=3
"""Compiled twins of the extractor's hottest loops; the Python versions are the reference.

``walk``: the walk of :func:`scrapy_simhash.extract.segment.segment` (see ``walk_python``),
reading libxml2's nodes directly instead of through one Python proxy per element. Only fields
of libxml2's node structs are read, through lxml's public C API (https://lxml.de/capi.html), so
nothing links against libxml2 itself. ``block_stats``: every block's length in
word-equivalents (``builtin.text_units``) and punctuation count (``builtin._punctuation``) in one
pass over its characters, without splitting, encoding or a regular expression.
``marker_flags``: which blocks may hold a call to action's or a legal line's markers.
``base_scores`` and ``child_runs``: the loops of ``builtin.base_scores`` and
``builtin.best_child_run`` (``builtin.child_runs_python``). Tests check that each twin gives
equal results on every corpus page and on generated text and markup.
"""

from cpython.unicode cimport PyUnicode_DecodeUTF8
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport strcmp, strlen
from cpython.unicode cimport Py_UNICODE_ISSPACE
from lxml.includes cimport tree
from lxml.includes.etreepublic cimport _Element, elementFactory, import_lxml__etree
from lxml.includes.tree cimport xmlAttr, xmlNode

cdef extern from "Python.h":
    int PyUnicode_KIND(object text)
    void* PyUnicode_DATA(object text)
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t index)

import_lxml__etree()

# Node kinds, as in segment.py.
cdef enum:
    INLINE = 0
    BLOCK = 1
    SKIP = 2
    LINK = 3
    BREAK = 4


class Enough(Exception):
    """Raised inside the walk when ``max_blocks`` blocks have been read."""


cdef inline bint _blank_bytes(const unsigned char* data) noexcept:
    """True when ``data`` (NUL-terminated) is ASCII whitespace only, as ``str.isspace`` sees
    it (tab to carriage return, the separators 0x1c-0x1f, space); False also for b""."""
    if data[0] == 0:
        return False
    while data[0] != 0:
        if not (data[0] == 32 or 9 <= data[0] <= 13 or 28 <= data[0] <= 31):
            return False
        data += 1
    return True


cdef inline bint _is_space(str text) noexcept:
    """``text.isspace()``."""
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t i, length = len(text)
    if length == 0:
        return False
    for i in range(length):
        if not Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i)):
            return False
    return True


cdef inline Py_ssize_t _stripped_length(str text) noexcept:
    """``len(text.strip())``."""
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t start = 0, end = len(text)
    while start < end and Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, start)):
        start += 1
    while end > start and Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, end - 1)):
        end -= 1
    return end - start


cdef inline bint _is_text(xmlNode* node) noexcept:
    return node.type == tree.XML_TEXT_NODE or node.type == tree.XML_CDATA_SECTION_NODE


cdef inline str _decoded(const char* data):
    return PyUnicode_DecodeUTF8(data, strlen(data), "replace")


cdef object _attribute(xmlNode* node, const char* name):
    """``element.get(name)`` for an attribute without a namespace: its value, or None."""
    cdef xmlAttr* attribute = node.properties
    cdef xmlNode* child
    while attribute is not NULL:
        if attribute.ns is NULL and strcmp(<const char*> attribute.name, name) == 0:
            child = attribute.children
            if child is NULL:
                return ""
            if child.next is NULL and child.content is not NULL:
                return _decoded(<const char*> child.content)
            parts = []
            while child is not NULL:
                if child.content is not NULL:
                    parts.append(_decoded(<const char*> child.content))
                child = child.next
            return "".join(parts)
        attribute = attribute.next
    return None


cdef inline bint _has_attribute(xmlNode* node, const char* name) noexcept:
    cdef xmlAttr* attribute = node.properties
    while attribute is not NULL:
        if attribute.ns is NULL and strcmp(<const char*> attribute.name, name) == 0:
            return True
        attribute = attribute.next
    return False


cdef str _tag(xmlNode* node):
    """``element.tag``: the name, with ``{namespace}`` in front when there is one."""
    name = _decoded(<const char*> node.name)
    if node.ns is not NULL and node.ns.href is not NULL:
        return "{" + _decoded(<const char*> node.ns.href) + "}" + name
    return name


cdef class _Walker:
    cdef list block_text, block_link_chars, block_owner, link_href, link_block
    cdef list node_tag, node_parent, node_depth, node_start, node_end, node_last
    cdef list node_classes, node_ids
    cdef list pieces, opened
    cdef dict kinds, tags
    cdef object hidden_style, read_skipped, result
    cdef _Element root
    cdef xmlNode* top
    cdef Py_ssize_t link_chars, link_depth, owner, max_blocks
    cdef bint keep_hidden

    cdef void flush(self) except *:
        text = "".join(self.pieces)
        self.pieces = []
        if not _is_space(text):
            self.block_text.append(text)
            self.block_link_chars.append(self.link_chars)
            self.block_owner.append(self.owner)
            if len(self.block_text) >= self.max_blocks:
                raise Enough
        self.link_chars = 0

    cdef void text(self, str text) except *:
        """An element's text or tail (a run of text nodes)."""
        if not text:
            return
        if not _is_space(text):
            self.pieces.append(text)
            if self.link_depth:
                self.link_chars += _stripped_length(text)
        elif self.pieces:  # keeps words apart; leading blank text is dropped
            self.pieces.append(" ")

    cdef xmlNode* text_run(self, xmlNode* node) except? NULL:
        """Read the run of text nodes that starts at ``node`` as one ``text``/``tail`` string
        (lxml joins them so); return the node after the run."""
        cdef xmlNode* first = node
        while node is not NULL and _is_text(node):
            node = node.next
        if first.next is node:
            if first.content is not NULL:
                if _blank_bytes(first.content):  # indentation between tags, mostly
                    if self.pieces:
                        self.pieces.append(" ")
                else:
                    self.text(_decoded(<const char*> first.content))
        else:
            parts = []
            while first is not node:
                if first.content is not NULL:
                    parts.append(_decoded(<const char*> first.content))
                first = first.next
            self.text("".join(parts))
        return node

    cdef xmlNode* text_then_element(self, xmlNode* node) except? NULL:
        """Read the text runs from ``node`` on; return the first element after them (or NULL).

        Comments, processing instructions and entity references are passed over: the walk in
        segment.py skips them and reads only their tails.
        """
        while node is not NULL:
            if _is_text(node):
                node = self.text_run(node)
            elif node.type == tree.XML_ELEMENT_NODE:
                return node
            else:
                node = node.next
        return NULL

    cdef bint start(self, xmlNode* node) except -1:
        """The walk's "start" event; True when the element's children are to be read."""
        cdef int kind
        # libxml2 keeps one copy of each name per document: tags are looked up by address.
        if node.ns is NULL:
            key = <Py_ssize_t> node.name
        else:
            key = (<Py_ssize_t> node.ns.href, <Py_ssize_t> node.name)
        known = self.tags.get(key)
        if known is None:
            tag = _tag(node)
            known = self.tags[key] = (tag, self.kinds.get(tag, INLINE))
        tag, kind = known
        if kind == SKIP:
            if tag == "head" or tag == "noscript" or tag == "template" or tag == "svg":
                # (segment.READ_SKIPPED_TAGS)
                self.read_skipped(elementFactory(self.root._doc, node), self.result)
            return False
        if not self.keep_hidden:
            style = _attribute(node, b"style")
            if style and self.hidden_style(style):
                if kind == BLOCK:
                    self.read_skipped(elementFactory(self.root._doc, node), self.result)
                return False
        if kind == BLOCK:
            if not self.keep_hidden and _has_attribute(node, b"hidden"):
                self.read_skipped(elementFactory(self.root._doc, node), self.result)
                return False
            if self.pieces:
                self.flush()
            self.opened.append((<Py_ssize_t> node, self.owner))
            self.top = node
            self.node_tag.append(tag)
            self.node_parent.append(self.owner)
            self.node_depth.append(len(self.opened))
            self.node_classes.append(_attribute(node, b"class"))
            self.node_ids.append(_attribute(node, b"id"))
            self.owner = len(self.node_start)
            self.node_start.append(len(self.block_text))
        elif kind == LINK:
            href = _attribute(node, b"href")
            if href and not href.startswith("javascript:"):
                self.opened.append((<Py_ssize_t> node, None))
                self.top = node
                self.link_depth += 1
                self.link_href.append(href)
                self.link_block.append(len(self.block_text))
        elif kind == BREAK:
            self.pieces.append("\u2028")  # segment.LINE_BREAK
        return True

    cdef void end(self, xmlNode* node) except *:
        """The walk's "end" event (the element's tail is read after it)."""
        cdef Py_ssize_t owner
        if node is not self.top:
            return
        owner_before = self.opened.pop()[1]
        if self.opened:
            self.top = <xmlNode*> <Py_ssize_t> self.opened[len(self.opened) - 1][0]
        else:
            self.top = NULL
        if owner_before is None:
            self.link_depth -= 1
            return
        if self.pieces:
            self.flush()
        owner = self.owner
        if self.node_start[owner] == len(self.block_text):
            # No text inside: drop the node (its descendants are empty too).
            del self.node_tag[owner:], self.node_parent[owner:], self.node_depth[owner:]
            del self.node_start[owner:], self.node_classes[owner:], self.node_ids[owner:]
        else:
            while len(self.node_end) < owner:  # descendants closed before it
                self.node_end.append(-1)
                self.node_last.append(-1)
            if len(self.node_end) == owner:
                self.node_end.append(len(self.block_text))
                self.node_last.append(len(self.node_tag))
            else:
                self.node_end[owner] = len(self.block_text)
                self.node_last[owner] = len(self.node_tag)
        self.owner = owner_before

    cdef void run(self) except *:
        cdef xmlNode* root = self.root._c_node
        cdef xmlNode* node = root
        cdef xmlNode* child
        while True:
            if self.start(node):
                child = self.text_then_element(node.children)
                if child is not NULL:
                    node = child
                    continue
            while True:  # no (more) children: end the element, then its tail and next sibling
                self.end(node)
                if node is root:
                    if node.next is not NULL and _is_text(node.next):
                        self.text_run(node.next)  # root.tail; the walk stays inside the root
                    if self.pieces:
                        self.flush()
                    return
                child = self.text_then_element(node.next)
                if child is not NULL:
                    node = child
                    break
                node = node.parent


def walk(root, result, bint keep_hidden, Py_ssize_t max_blocks, dict kinds, hidden_style,
         read_skipped, list node_classes, list node_ids):
    """Fill ``result`` (a ``Segmented``) as segment.walk_python does; return the innermost
    node still open (-1 when the walk read the whole tree)."""
    cdef _Walker walker = _Walker()
    walker.root = root
    walker.result = result
    walker.block_text = result.block_text
    walker.block_link_chars = result.block_link_chars
    walker.block_owner = result.block_owner
    walker.link_href = result.link_href
    walker.link_block = result.link_block
    walker.node_tag = result.node_tag
    walker.node_parent = result.node_parent
    walker.node_depth = result.node_depth
    walker.node_start = result.node_start
    walker.node_end = result.node_end
    walker.node_last = result.node_last
    walker.node_classes = node_classes
    walker.node_ids = node_ids
    walker.pieces = []
    walker.opened = []
    walker.kinds = kinds
    walker.tags = {}
    walker.hidden_style = hidden_style
    walker.read_skipped = read_skipped
    walker.top = NULL
    walker.link_chars = 0
    walker.link_depth = 0
    walker.owner = -1
    walker.max_blocks = max_blocks
    walker.keep_hidden = keep_hidden
    try:
        walker.run()
    except Enough:
        pass
    return walker.owner


def block_stats(list texts, double half_weight):
    """``([builtin.text_units(t) for t in texts], [builtin._punctuation(t) for t in texts])``
    in one pass over each text's characters, without splitting, encoding or a regex."""
    cdef Py_ssize_t i, length, words, extra, plain, wide
    cdef int kind
    cdef void* data
    cdef Py_UCS4 char, after
    cdef bint in_word, ascii
    units = []
    marks = []
    for text in texts:
        kind = PyUnicode_KIND(text)
        data = PyUnicode_DATA(text)
        length = len(<str> text)
        words = extra = plain = wide = 0
        in_word = False
        ascii = True
        for i in range(length):
            char = PyUnicode_READ(kind, data, i)
            if Py_UNICODE_ISSPACE(char):
                in_word = False
            elif not in_word:
                words += 1
                in_word = True
            if char < 0x80:
                if char == 46 or char == 44 or char == 59 or char == 33 or char == 63:  # .,;!?
                    plain += 1
                    if i + 1 == length:
                        wide += 1
                    else:  # in non-ASCII text, only before a space, a quote or a bracket
                        after = PyUnicode_READ(kind, data, i + 1)
                        if (Py_UNICODE_ISSPACE(after) or after == 34 or after == 39
                                or after == 0x201D or after == 0x2019 or after == 41
                                or after == 93):
                            wide += 1
                continue
            ascii = False
            if char < 0x800:
                extra += 1
            elif char >= 0x10000:
                extra += 3
            elif char < 0xD800 or char > 0xDFFF:
                extra += 2
                if (char == 0x3002 or char == 0xFF0C or char == 0xFF1B or char == 0xFF01
                        or char == 0xFF1F or char == 0x3001):  # 。，；！？、
                    wide += 1
        units.append(<double> words + half_weight * <double> extra)
        marks.append(plain if ascii else wide)
    return units, marks


# Bits of ``marker_flags``.
cdef enum:
    CALL_TO_ACTION_MARKER = 1
    LEGAL_MARKER = 2


cdef inline unsigned int _lower(Py_UCS4 char) noexcept:
    """The code point, A-Z as a-z (Py_UCS4 arithmetic would make Python strings)."""
    cdef unsigned int code = <unsigned int> char
    return code + 32 if 65 <= code <= 90 else code


cdef inline bint _follows(int kind, void* data, Py_ssize_t start, Py_ssize_t length,
                          const char* rest) noexcept:
    """Whether ``rest`` (lower-case ASCII) follows at ``start``, ASCII case aside."""
    cdef Py_ssize_t i = 0
    while rest[i] != 0:
        if (start + i >= length
                or _lower(PyUnicode_READ(kind, data, start + i)) != <unsigned char> rest[i]):
            return False
        i += 1
    return True


def marker_flags(list texts):
    """For each text, bit 1 when it may hold one of ``builtin``'s call-to-action markers and bit
    2 one of its legal markers: set wherever the marker is, ASCII case aside (so for every text
    whose markers ``builtin._is_call_to_action`` and ``builtin._is_legal`` find); one pass over
    the characters, where those check each marker in turn."""
    cdef Py_ssize_t i, length
    cdef int kind, flags
    cdef void* data
    cdef unsigned int char
    out = []
    for text in texts:
        kind = PyUnicode_KIND(text)
        data = PyUnicode_DATA(text)
        length = len(<str> text)
        flags = 0
        for i in range(length):
            char = _lower(PyUnicode_READ(kind, data, i))
            if char == 101:  # e: ewsletter, eserved
                if _follows(kind, data, i + 1, length, b"wsletter"):
                    flags |= CALL_TO_ACTION_MARKER
                elif _follows(kind, data, i + 1, length, b"served"):
                    flags |= LEGAL_MARKER
            elif char == 105:  # i: ign, icp
                if _follows(kind, data, i + 1, length, b"gn"):
                    flags |= CALL_TO_ACTION_MARKER
                elif _follows(kind, data, i + 1, length, b"cp"):
                    flags |= LEGAL_MARKER
            elif char == 117:  # u: ubscribe, ubmit
                if (_follows(kind, data, i + 1, length, b"bscribe")
                        or _follows(kind, data, i + 1, length, b"bmit")):
                    flags |= CALL_TO_ACTION_MARKER
            elif char == 111:  # o: ollow, ownload, opyright
                if (_follows(kind, data, i + 1, length, b"llow")
                        or _follows(kind, data, i + 1, length, b"wnload")):
                    flags |= CALL_TO_ACTION_MARKER
                elif _follows(kind, data, i + 1, length, b"pyright"):
                    flags |= LEGAL_MARKER
            elif char == 121:  # y: your
                if _follows(kind, data, i + 1, length, b"our"):
                    flags |= CALL_TO_ACTION_MARKER
            elif char >= 0x80:
                # 订阅, 关注, 扫; ©, 版权, 许可, 转载, 未经, 举报, 侵权 (their first characters)
                if char == 0x8BA2 or char == 0x5173 or char == 0x626B:
                    flags |= CALL_TO_ACTION_MARKER
                elif (char == 0xA9 or char == 0x7248 or char == 0x8BB8 or char == 0x8F6C
                        or char == 0x672A or char == 0x4E3E or char == 0x4FB5):
                    flags |= LEGAL_MARKER
            if flags == 3:
                break
        out.append(flags)
    return out


cdef inline void _extend_run(Py_ssize_t node, Py_ssize_t block, Py_ssize_t end, double value,
                             double* run_total, Py_ssize_t* run_start, double* best_total,
                             Py_ssize_t* best_start, Py_ssize_t* best_end) noexcept:
    """Kadane's step: extend ``node``'s current run by one child (``block:end``, worth
    ``value``), or restart it there; keep its best run."""
    cdef double running = run_total[node]
    if running <= 0:
        run_start[node] = block
        running = value
    else:
        running += value
    run_total[node] = running
    if running > best_total[node]:
        best_total[node] = running
        best_start[node] = run_start[node]
        best_end[node] = end


def child_runs(list scores, list starts, list ends, list parents, list owners):
    """The Kadane pass of ``builtin.best_child_run`` (``builtin.child_runs_python`` is the
    reference): for each node, the total, first block and end block of its best run of
    consecutive children. The same additions in the same order as the Python loop, in
    doubles as Python's floats are: the same totals to the last bit."""
    cdef Py_ssize_t blocks = len(scores), count = len(starts), node = 0, block, end, parent
    cdef Py_ssize_t owner
    cdef double total = 0.0
    cdef double* prefix = <double*> malloc((blocks + 1) * sizeof(double))
    cdef double* run_total = <double*> calloc(count + 1, sizeof(double))
    cdef double* best_total = <double*> calloc(count + 1, sizeof(double))
    cdef Py_ssize_t* run_start = <Py_ssize_t*> calloc(count + 1, sizeof(Py_ssize_t))
    cdef Py_ssize_t* best_start = <Py_ssize_t*> calloc(count + 1, sizeof(Py_ssize_t))
    cdef Py_ssize_t* best_end = <Py_ssize_t*> calloc(count + 1, sizeof(Py_ssize_t))
    try:
        if (prefix == NULL or run_total == NULL or best_total == NULL or run_start == NULL
                or best_start == NULL or best_end == NULL):
            raise MemoryError()
        prefix[0] = 0.0
        for block in range(blocks):
            total += <double> scores[block]
            prefix[block + 1] = total
        for block in range(blocks):
            while node < count and <Py_ssize_t> starts[node] == block:
                end = ends[node]
                parent = parents[node]
                node += 1
                if parent >= 0 and end != block:  # a child node, taken whole
                    _extend_run(parent, block, end, prefix[end] - prefix[block], run_total,
                                run_start, best_total, best_start, best_end)
            owner = owners[block]
            if owner >= 0:  # a block of the node's own
                _extend_run(owner, block, block + 1, <double> scores[block], run_total,
                            run_start, best_total, best_start, best_end)
        return ([best_total[node] for node in range(count)],
                [best_start[node] for node in range(count)],
                [best_end[node] for node in range(count)])
    finally:
        free(prefix)
        free(run_total)
        free(best_total)
        free(run_start)
        free(best_start)
        free(best_end)


cdef extern from "Python.h":
    Py_ssize_t PyUnicode_Tailmatch(object text, object suffix, Py_ssize_t start,
                                   Py_ssize_t end, int direction) except -1


cdef inline Py_ssize_t _rstripped_end(str text) noexcept:
    """``len(text.rstrip())``."""
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t end = len(text)
    while end > 0 and Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, end - 1)):
        end -= 1
    return end


cdef inline bint _ends_with(str text, Py_ssize_t end, tuple suffixes) except -1:
    """``text[:end].endswith(suffixes)``."""
    for suffix in suffixes:
        if PyUnicode_Tailmatch(text, suffix, 0, end, 1):
            return True
    return False


cdef inline Py_ssize_t _spaces(str text) noexcept:
    """``text.count(" ")``."""
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t i, count = 0
    for i in range(len(text)):
        if PyUnicode_READ(kind, data, i) == 32:
            count += 1
    return count


def base_scores(list texts, list units_of, list counted, list flags, list link_chars,
                list owners, list heading_owner, list in_table, captions, set boilerplate,
                str titles, tuple settings, tuple checks):
    """``builtin.base_scores_python``'s loop over the blocks, the same tests in the same order
    and the same arithmetic in doubles; the tests on a text's words (an advertisement's label,
    a call to action, a legal line, a byline) call ``checks``, after the cheap tests that rule
    most blocks out."""
    cdef bint ad_dropped, calls_dropped, labels_dropped
    cdef double ad_units, calls_max_units, heading_max_units, label_max_units, tiny_units
    cdef double density_limit, linked_prose_units, legal_max_units, byline_max_units
    cdef double teaser_max_units, unpunctuated_max_units, link_penalty
    cdef Py_ssize_t ad_max_chars, index, count = len(texts), owner, chars, links, end
    cdef double units, density, punctuated, text_part
    cdef long punctuation
    cdef int marked
    (ad_dropped, ad_units, ad_max_chars, calls_dropped, calls_max_units, heading_max_units,
     labels_dropped, label_max_units, tiny_units, density_limit, linked_prose_units,
     legal_max_units, byline_max_units, teaser_max_units, unpunctuated_max_units,
     link_penalty) = settings
    (is_ad_label, is_call_to_action, is_legal, is_byline, titled_date, label_ends,
     sentence_ends, ellipses) = checks
    if not (len(units_of) == len(counted) == len(flags) == len(link_chars) == len(owners)
            == count):
        raise ValueError("one figure of each a block")
    scores = []
    for index in range(count):
        text = <str> texts[index]
        units = units_of[index]
        links = link_chars[index]
        owner = owners[index]
        marked = flags[index]
        if captions is not None and owner >= 0 and captions[owner]:
            scores.append(0.0)
            continue
        if (ad_dropped and units <= ad_units and _stripped_length(text) <= ad_max_chars
                and is_ad_label(text)):
            scores.append(-1.0)
            boilerplate.add(index)
            continue
        if (calls_dropped and units <= calls_max_units and marked & CALL_TO_ACTION_MARKER
                and is_call_to_action(text)):
            scores.append(-1.0)
            boilerplate.add(index)
            continue
        if owner >= 0 and heading_owner[owner] and units < heading_max_units:
            scores.append(-units * 0.5 if links * 2 > _stripped_length(text) else 0.0)
            continue
        if (labels_dropped and units <= label_max_units
                and _ends_with(text, _rstripped_end(text), label_ends)
                and not (owner >= 0 and in_table[owner])):
            scores.append(-1.0)
            boilerplate.add(index)
            continue
        if units < tiny_units:
            scores.append(-1.0 if units and (links or owner < 0 or not in_table[owner])
                          else 0.0)
            continue
        density = 0.0
        if links:
            chars = len(text) - _spaces(text)
            if chars > 0:
                density = <double> links / <double> chars
                if density > 1.0:
                    density = 1.0
            if density >= density_limit and (
                    units < linked_prose_units or <long> counted[index] < 2):
                scores.append(-units * density)
                continue
        if units < legal_max_units and marked & LEGAL_MARKER and is_legal(text):
            scores.append(-units - 5.0)
            boilerplate.add(index)
            continue
        if units < byline_max_units and is_byline(text):
            end = _rstripped_end(text)
            if not _ends_with(text, end, sentence_ends) and not titled_date(text, titles):
                scores.append(-1.0)
                boilerplate.add(index)
                continue
        if units < teaser_max_units and _ends_with(text, _rstripped_end(text), ellipses):
            scores.append(-1.0)
            continue
        punctuation = counted[index]
        if punctuation == 0:
            scores.append(-1.0 if units < unpunctuated_max_units else units * 0.3)
            continue
        punctuated = <double> punctuation * 15.0 / (units if units > 15.0 else 15.0)
        if punctuated > 1.0:
            punctuated = 1.0
        text_part = (1.0 - density) * (0.5 + 0.5 * punctuated)
        scores.append(units * (text_part - link_penalty * density))
    return scores
