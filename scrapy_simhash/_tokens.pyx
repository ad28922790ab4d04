# cython: language_level=3
"""The word tokens of a text made of characters that folding leaves alone, hashed in one pass.

For such a text (every character ``_STABLE`` in ``text.hashing._fold_traits``, none CJK), NFKC and
case folding only lower ASCII letters (and swap full-width punctuation for other punctuation),
so its tokens are its letter/digit runs with ASCII lowered; :func:`word_hashes` hashes their
UTF-8 bytes as ``simhash.segment_hashes`` does, straight from the str, with no fold, no encode and
no numpy pass. ``tests/text/test_tokens.py`` checks it against the Python path on every corpus text
and on arbitrary text.
"""

from cpython.bytes cimport PyBytes_FromStringAndSize
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc


cdef extern from "Python.h":
    int PyUnicode_KIND(object text)
    void* PyUnicode_DATA(object text)
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t index)


cdef enum:
    STABLE = 1  # text.hashing._STABLE
    LETTER_OR_DIGIT = 1  # text.hashing._LETTER_OR_DIGIT
    CJK = 2  # text.hashing._CJK


def word_hashes(str text, const uint8_t[:] traits, const uint8_t[:] kinds, uint64_t base,
                Py_ssize_t max_chars):
    """The polynomial hashes (native uint64 bytes) of the text's tokens of 2 or more bytes and
    at most ``max_chars`` characters, in order; None when a character is not stable or is CJK
    (the caller folds the text as a string then)."""
    cdef int kind = PyUnicode_KIND(text)
    cdef void* data = PyUnicode_DATA(text)
    cdef Py_ssize_t length = len(text)
    cdef Py_ssize_t i, count = 0, token_bytes = 0, token_chars = 0
    cdef long code
    cdef uint64_t value = 0
    cdef uint64_t* hashes = <uint64_t*> malloc((length // 2 + 1) * sizeof(uint64_t))
    if hashes is NULL:
        raise MemoryError()
    try:
        for i in range(length + 1):
            code = PyUnicode_READ(kind, data, i) if i < length else 32
            if code < 0x80:
                if 0x41 <= code <= 0x5A:
                    code += 0x20  # casefold of an ASCII capital
                if 0x61 <= code <= 0x7A or 0x30 <= code <= 0x39:
                    value = value * base + code + 1
                    token_bytes += 1
                    token_chars += 1
                    continue
            else:
                if code >= traits.shape[0] or not (traits[code] & STABLE):
                    return None
                if kinds[code] == CJK:
                    return None
                if kinds[code] == LETTER_OR_DIGIT:  # its UTF-8 bytes, each hashed
                    if code < 0x800:
                        value = value * base + (0xC0 | (code >> 6)) + 1
                        value = value * base + (0x80 | (code & 0x3F)) + 1
                        token_bytes += 2
                    elif code < 0x10000:
                        value = value * base + (0xE0 | (code >> 12)) + 1
                        value = value * base + (0x80 | ((code >> 6) & 0x3F)) + 1
                        value = value * base + (0x80 | (code & 0x3F)) + 1
                        token_bytes += 3
                    else:
                        value = value * base + (0xF0 | (code >> 18)) + 1
                        value = value * base + (0x80 | ((code >> 12) & 0x3F)) + 1
                        value = value * base + (0x80 | ((code >> 6) & 0x3F)) + 1
                        value = value * base + (0x80 | (code & 0x3F)) + 1
                        token_bytes += 4
                    token_chars += 1
                    continue
            # not part of a word: the token so far (if any) ends here
            if token_bytes > 1 and token_chars <= max_chars:
                hashes[count] = value
                count += 1
            value = 0
            token_bytes = 0
            token_chars = 0
        return PyBytes_FromStringAndSize(<char*> hashes, count * sizeof(uint64_t))
    finally:
        free(hashes)


cdef enum:
    WORD_CHAR = 1  # evidence._WORD_CHAR
    SINGLE = 2  # evidence._SINGLE
    MARK = 4  # evidence._MARK


def word_spans(const uint32_t[:] codes, const uint8_t[:] classes, uint64_t base,
               int64_t[:] starts, int64_t[:] ends, uint64_t[:] hashes):
    """The words of a case-folded text's code points as ``evidence._word_bounds`` reads a text
    without combining marks, hashed as ``simhash.segment_hashes`` hashes their UTF-32-LE bytes:
    written to ``starts``, ``ends`` and ``hashes`` (each as long as ``codes``); the
    number of words, or -1 when a code point is a combining mark (the caller's numpy pass reads
    those). ``classes``: ``evidence._char_classes()``."""
    cdef Py_ssize_t length = codes.shape[0]
    cdef Py_ssize_t i, count = 0
    cdef uint32_t code
    cdef uint8_t kind
    cdef bint word, single, inside = False
    cdef uint64_t value = 0
    for i in range(length):
        code = codes[i]
        if code > 0xFFFF:  # astral: mostly letters and ideographs, beyond U+20000 words alone
            word, single = True, code >= 0x20000
        else:
            kind = classes[code]
            if kind & MARK:
                return -1
            word, single = kind & WORD_CHAR, kind & SINGLE
        if not word or single:
            if inside:  # the word so far ends before this one
                ends[count] = i
                hashes[count] = value
                count += 1
                inside = False
            if not word:
                continue
        if not inside:
            starts[count] = i
            value = 0
            inside = True
        value = value * base + (code & 0xFF) + 1
        value = value * base + ((code >> 8) & 0xFF) + 1
        value = value * base + ((code >> 16) & 0xFF) + 1
        value = value * base + (code >> 24) + 1
        if single:  # a word of one character
            ends[count] = i + 1
            hashes[count] = value
            count += 1
            inside = False
    if inside:
        ends[count] = length
        hashes[count] = value
        count += 1
    return count
