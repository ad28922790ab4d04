# cython: language_level=3
"""jieba's default cut (``jieba.lcut(text)``: dictionary DAG, best route, HMM for unknown
words) of Han runs, compiled, returning the tokens as UTF-8 bytes joined by newlines.

The fingerprint needs the tokens' bytes, not a Python str per token: for text made of jieba-range
Han characters (U+4E00..U+9FD5) and newlines, :meth:`JiebaCut.joined` returns exactly
``"\\n".join(jieba.lcut(text)).encode()``, computed with jieba's own dictionary and HMM tables,
the same arithmetic in the same order (so the same ties), without one object per token.
``tests/text/test_jieba.py`` checks it against jieba and rjieba on every corpus text and on
generated text. Any other character is refused (ValueError) and the caller uses rjieba.
"""

from cpython.bytes cimport PyBytes_FromStringAndSize
from libc.math cimport log
from libc.stdint cimport int32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memset


cdef extern from "Python.h":
    int PyUnicode_4BYTE_KIND
    object PyUnicode_FromKindAndData(int kind, const void* buffer, Py_ssize_t size)
    int PyUnicode_KIND(object text)
    void* PyUnicode_DATA(object text)
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t index)


cdef enum:
    HAN_FIRST = 0x4E00
    HAN_LAST = 0x9FD5
    HAN_COUNT = HAN_LAST - HAN_FIRST + 1
    # HMM states, in jieba's tie order ("B" < "E" < "M" < "S")
    B = 0
    E = 1
    M = 2
    S = 3

cdef double MIN_FLOAT = -3.14e100  # jieba.finalseg.MIN_FLOAT: what a missing probability is


cdef inline uint64_t _mix(uint64_t key) noexcept nogil:
    key ^= key >> 33
    key *= <uint64_t> 0xFF51AFD7ED558CCDULL
    key ^= key >> 33
    return key


ctypedef struct Prefix:
    uint64_t key  # in the table: (parent node << 15 | character offset) + 1; 0: an empty slot
    double word_log  # log(frequency) of the word the prefix spells; NOT_A_WORD if none
    int32_t node  # the prefix's node number (-1 in the first-character array: no prefix)


cdef double NOT_A_WORD = -1.0  # below any log(frequency >= 1)


cdef inline bint _is_ascii_space(unsigned char byte) noexcept nogil:
    """What ``bytes.strip()`` strips: space, \\t, \\n, \\v, \\f, \\r."""
    return byte == 32 or 9 <= byte <= 13


cdef inline long long _digits(const unsigned char* data, Py_ssize_t first, Py_ssize_t stop
                              ) noexcept nogil:
    """The number ``data[first:stop]`` spells in 1 to 18 ASCII digits, else -1."""
    cdef long long value = 0
    cdef Py_ssize_t i
    if stop <= first or stop - first > 18:
        return -1
    for i in range(first, stop):
        if data[i] < 48 or data[i] > 57:
            return -1
        value = value * 10 + (data[i] - 48)
    return value


cdef class _Work:
    """Scratch arrays for cutting one text of ``length`` characters, freed with the object."""

    cdef int32_t* chars  # character offsets (-1: a newline)
    cdef Py_UCS4* rest  # the text outside the Han runs
    cdef char* out  # the tokens as UTF-8, newline-separated: at most 4 bytes a character
    cdef double* route
    cdef int32_t* route_end
    cdef double* scores  # the HMM's, 4 a character
    cdef unsigned char* back
    cdef unsigned char* states

    def __cinit__(self, Py_ssize_t length):
        self.chars = <int32_t*> malloc(length * sizeof(int32_t) + 1)
        self.rest = <Py_UCS4*> malloc(length * sizeof(Py_UCS4) + 1)
        self.out = <char*> malloc(4 * length + 2)
        self.route = <double*> malloc((length + 1) * sizeof(double))
        self.route_end = <int32_t*> malloc((length + 1) * sizeof(int32_t))
        self.scores = <double*> malloc(4 * length * sizeof(double) + 1)
        self.back = <unsigned char*> malloc(4 * length + 1)
        self.states = <unsigned char*> malloc(length + 1)
        if (self.chars is NULL or self.rest is NULL or self.out is NULL or self.route is NULL
                or self.route_end is NULL or self.scores is NULL or self.back is NULL
                or self.states is NULL):
            raise MemoryError()

    def __dealloc__(self):
        free(self.chars)
        free(self.rest)
        free(self.out)
        free(self.route)
        free(self.route_end)
        free(self.scores)
        free(self.back)
        free(self.states)


cdef class JiebaCut:
    """jieba's prefix dictionary as a trie (first character: an array; deeper: a hash table,
    one cache line per step) and its HMM tables, ready to cut Han runs."""

    cdef Prefix* first  # HAN_COUNT entries
    cdef Prefix* table
    cdef uint64_t mask
    cdef Py_ssize_t nodes
    cdef double log_total
    cdef double start[4]
    cdef double trans[4][4]
    cdef double* emit  # 4 * HAN_COUNT

    def __cinit__(self):
        cdef Py_ssize_t i
        self.first = <Prefix*> malloc(HAN_COUNT * sizeof(Prefix))
        self.emit = <double*> malloc(4 * HAN_COUNT * sizeof(double))
        self.mask = (1 << 20) - 1
        self.table = <Prefix*> calloc(self.mask + 1, sizeof(Prefix))
        if self.first is NULL or self.emit is NULL or self.table is NULL:
            raise MemoryError()
        for i in range(HAN_COUNT):
            self.first[i].key = 0
            self.first[i].node = -1
            self.first[i].word_log = NOT_A_WORD
        self.nodes = 0

    def __dealloc__(self):
        free(self.first)
        free(self.emit)
        free(self.table)

    def __init__(self, bytes dictionary, dict start, dict trans, dict emit):
        """``dictionary``: the bytes of a jieba dictionary file (``word frequency [tag]`` a
        line), read as jieba's ``gen_pfdict`` reads it: each line stripped of ASCII whitespace,
        the word up to the first space, the frequency up to the next, later lines winning;
        ``start``, ``trans``, ``emit``: jieba.finalseg's ``start_P``, ``trans_P`` and
        ``emit_P``. A line jieba would refuse raises ValueError naming it."""
        cdef int state, other
        cdef long long total = self._load_dictionary(dictionary)
        names = "BEMS"
        self.log_total = log(<double> total)
        for state in range(4):
            self.start[state] = start.get(names[state], MIN_FLOAT)
            row = trans.get(names[state], {})
            for other in range(4):
                self.trans[state][other] = row.get(names[other], MIN_FLOAT)
            probabilities = emit.get(names[state], {})
            for i in range(HAN_COUNT):
                self.emit[state * HAN_COUNT + i] = MIN_FLOAT
            for char_text, value in probabilities.items():
                if len(char_text) == 1 and HAN_FIRST <= ord(char_text) <= HAN_LAST:
                    self.emit[state * HAN_COUNT + ord(char_text) - HAN_FIRST] = value

    cdef long long _load_dictionary(self, bytes dictionary) except? -1:
        """Add every word of the dictionary file; the sum of their frequencies."""
        cdef const unsigned char* data = dictionary
        cdef Py_ssize_t size = len(dictionary), i = 0, first, end, space, stop, line = 0
        cdef long long total = 0, frequency
        while i < size:
            first = i
            while i < size and data[i] != 10:
                i += 1
            end = i
            i += 1
            line += 1
            while first < end and _is_ascii_space(data[first]):
                first += 1
            while end > first and _is_ascii_space(data[end - 1]):
                end -= 1
            space = first
            while space < end and data[space] != 32:
                space += 1
            if space == end:  # no frequency (jieba: "not enough values to unpack")
                raise ValueError(f"invalid dictionary entry at line {line}: "
                                 f"{dictionary[first:end]!r}")
            stop = space + 1
            while stop < end and data[stop] != 32:
                stop += 1
            frequency = _digits(data, space + 1, stop)
            if frequency < 0:  # not plain digits: as int() reads it, or ValueError
                frequency = int(dictionary[space + 1:stop])
            if not self._add_han_word(data, first, space, frequency):
                self._add_word(dictionary[first:space].decode("utf-8"), frequency)
            total += frequency
        return total

    cdef bint _add_han_word(self, const unsigned char* data, Py_ssize_t first, Py_ssize_t end,
                            long long frequency) except -1:
        """:meth:`_add_word` for a word whose UTF-8 bytes are all Han characters of jieba's range
        (nearly every line), read in place; False, having added nothing, for any other word."""
        cdef Py_ssize_t i
        cdef long code_point
        cdef Prefix* prefix = NULL
        if end == first or (end - first) % 3:
            return False
        for i in range(first, end, 3):  # lead bytes E4..E9 hold the range; no overlong forms
            if not (0xE4 <= data[i] <= 0xE9 and 0x80 <= data[i + 1] <= 0xBF
                    and 0x80 <= data[i + 2] <= 0xBF):
                return False
            code_point = ((data[i] & 0x0F) << 12) | ((data[i + 1] & 0x3F) << 6) | (data[i + 2] & 0x3F)
            if code_point < HAN_FIRST or code_point > HAN_LAST:
                return False
        for i in range(first, end, 3):
            code_point = ((data[i] & 0x0F) << 12) | ((data[i + 1] & 0x3F) << 6) | (data[i + 2] & 0x3F)
            prefix = self._child(prefix, code_point - HAN_FIRST)
        prefix.word_log = log(<double> frequency) if frequency > 0 else NOT_A_WORD
        return True

    cdef int _add_word(self, str word, long long frequency) except -1:
        """jieba: ``FREQ[word] = frequency`` (a word only when not 0) and its prefixes."""
        cdef Py_ssize_t i, length = len(word)
        cdef Prefix* prefix = NULL
        cdef long code_point
        for i in range(length):
            code_point = <Py_UCS4> word[i]
            if code_point < HAN_FIRST or code_point > HAN_LAST:
                return 0  # its Han prefixes are in; the rest can never match a Han run
            prefix = self._child(prefix, code_point - HAN_FIRST)
        if length:
            prefix.word_log = log(<double> frequency) if frequency > 0 else NOT_A_WORD
        return 0

    cdef inline Prefix* _find(self, Prefix* parent, Py_ssize_t offset) noexcept nogil:
        """The prefix ``parent`` + character ``offset`` (``parent`` NULL: the empty one), or
        NULL when no dictionary word starts with it."""
        if parent is NULL:
            return &self.first[offset] if self.first[offset].node >= 0 else NULL
        cdef uint64_t key = ((<uint64_t> parent.node) << 15 | <uint64_t> offset) + 1
        cdef uint64_t slot = _mix(key) & self.mask
        while self.table[slot].key != 0:
            if self.table[slot].key == key:
                return &self.table[slot]
            slot = (slot + 1) & self.mask
        return NULL

    cdef Prefix* _child(self, Prefix* parent, Py_ssize_t offset) except NULL:
        """The prefix ``parent`` + character ``offset``, made (not a word) if new."""
        cdef int32_t node
        cdef uint64_t key, slot
        cdef Prefix* found = self._find(parent, offset)
        if found is not NULL:
            return found
        if parent is NULL:
            found = &self.first[offset]
        else:
            if (self.nodes + 1) * 2 > <Py_ssize_t> self.mask:  # at most half full
                node = parent.node
                self._grow_table()
                parent = self._find_node(node)
            key = ((<uint64_t> parent.node) << 15 | <uint64_t> offset) + 1
            slot = _mix(key) & self.mask
            while self.table[slot].key != 0:
                slot = (slot + 1) & self.mask
            found = &self.table[slot]
            found.key = key
        found.node = <int32_t> self.nodes
        found.word_log = NOT_A_WORD
        self.nodes += 1
        return found

    cdef Prefix* _find_node(self, int32_t node) noexcept:
        """The prefix numbered ``node`` (after the table moved), by a scan: rare."""
        cdef uint64_t slot
        cdef Py_ssize_t i
        for i in range(HAN_COUNT):
            if self.first[i].node == node:
                return &self.first[i]
        for slot in range(self.mask + 1):
            if self.table[slot].key != 0 and self.table[slot].node == node:
                return &self.table[slot]
        return NULL

    cdef void _grow_table(self) except *:
        cdef uint64_t old_mask = self.mask
        cdef Prefix* old = self.table
        cdef uint64_t mask = old_mask * 2 + 1
        cdef uint64_t slot, i
        cdef Prefix* table = <Prefix*> calloc(mask + 1, sizeof(Prefix))
        if table is NULL:
            raise MemoryError()
        for i in range(old_mask + 1):
            if old[i].key != 0:
                slot = _mix(old[i].key) & mask
                while table[slot].key != 0:
                    slot = (slot + 1) & mask
                table[slot] = old[i]
        self.table, self.mask = table, mask
        free(old)

    def word_log(self, str word):
        """log(frequency) of a Han word of the dictionary; None for any other string."""
        cdef Prefix* prefix = NULL
        cdef long code_point
        if not word:
            return None
        for character in word:
            code_point = <Py_UCS4> character
            if code_point < HAN_FIRST or code_point > HAN_LAST:
                return None
            prefix = self._find(prefix, code_point - HAN_FIRST)
            if prefix is NULL:
                return None
        return None if prefix.word_log == NOT_A_WORD else prefix.word_log

    @property
    def prefixes(self) -> int:
        """How many prefixes (trie nodes) the dictionary has."""
        return self.nodes

    def joined(self, str text):
        """``"\\n".join(jieba.lcut(text)).encode()`` for text of Han runs and newlines."""
        cdef int kind = PyUnicode_KIND(text)
        cdef void* data = PyUnicode_DATA(text)
        cdef Py_ssize_t length = len(text)
        cdef Py_ssize_t i, start, written = 0
        cdef long code_point
        cdef bint first_token = True
        for i in range(length):
            code_point = PyUnicode_READ(kind, data, i)
            if (code_point < HAN_FIRST or code_point > HAN_LAST) and code_point != 10:
                raise ValueError(f"not a Han run character: U+{code_point:04X}")
        if length == 0:
            return b""
        cdef _Work work = _Work(length)
        for i in range(length):
            code_point = PyUnicode_READ(kind, data, i)
            work.chars[i] = -1 if code_point == 10 else <int32_t> (code_point - HAN_FIRST)
        start = 0
        for i in range(length + 1):
            if i == length or work.chars[i] < 0:
                if i > start:
                    written = self._cut_run(work, work.chars + start, i - start, written,
                                            &first_token)
                if i < length:  # the newline is a token of its own
                    if not first_token:
                        work.out[written] = 10
                        written += 1
                    work.out[written] = 10
                    written += 1
                    first_token = False
                start = i + 1
        return PyBytes_FromStringAndSize(work.out, written)

    def split_cut(self, str text):
        """``(rest, tokens)`` for any text: ``rest`` is the text with each run of jieba-range
        Han characters replaced by one space (``" ".join(re.split("([\u4e00-\u9fd5]+)",
        text)[::2])``), ``tokens`` is ``self.joined("\n".join(runs))``."""
        cdef Py_ssize_t written = 0
        cdef _Work work = _Work(len(text))
        rest = self._split(text, work, &written)
        return rest, PyBytes_FromStringAndSize(work.out, written)

    def split_hashes(self, str text, uint64_t base, Py_ssize_t max_chars):
        """``(rest, hashes)``: ``rest`` as from :meth:`split_cut`; ``hashes`` the polynomial
        hash (base ``base``, bytes + 1, modulo 2**64: ``simhash.segment_hashes``) of the UTF-8
        of each token of at most ``max_chars`` characters, in order, as native uint64 bytes."""
        cdef Py_ssize_t written = 0, i, begin, count = 0
        cdef uint64_t value
        cdef _Work work = _Work(len(text))
        rest = self._split(text, work, &written)
        cdef char* out = work.out
        cdef uint64_t* hashes = <uint64_t*> work.scores  # free again: 8 bytes a character
        i = 0
        while i < written:
            if out[i] == 10:
                i += 1
                continue
            begin = i
            value = 0
            while i < written and out[i] != 10:
                value = value * base + <uint64_t> (<unsigned char> out[i]) + 1
                i += 1
            if (i - begin) // 3 <= max_chars:  # 3 UTF-8 bytes a character
                hashes[count] = value
                count += 1
        return rest, PyBytes_FromStringAndSize(<char*> hashes, count * sizeof(uint64_t))

    cdef str _split(self, str text, _Work work, Py_ssize_t* written_out):
        """Fill ``work.out`` with the tokens of the text's Han runs, as :meth:`split_cut`
        returns them; return the rest."""
        cdef int kind = PyUnicode_KIND(text)
        cdef void* data = PyUnicode_DATA(text)
        cdef Py_ssize_t length = len(text)
        cdef Py_ssize_t i, start, kept = 0, han = 0, written = 0
        cdef long code_point
        cdef bint first_token = True, first_run = True
        i = 0
        while i < length:
            code_point = PyUnicode_READ(kind, data, i)
            if code_point < HAN_FIRST or code_point > HAN_LAST:
                work.rest[kept] = <Py_UCS4> code_point
                kept += 1
                i += 1
                continue
            start = han
            while True:
                work.chars[han] = <int32_t> (code_point - HAN_FIRST)
                han += 1
                i += 1
                if i == length:
                    break
                code_point = PyUnicode_READ(kind, data, i)
                if code_point < HAN_FIRST or code_point > HAN_LAST:
                    break
            work.rest[kept] = 32  # the run becomes one space
            kept += 1
            if not first_run:  # the newline between two runs is a token of its own
                work.out[written] = 10
                work.out[written + 1] = 10
                written += 2
            first_run = False
            written = self._cut_run(work, work.chars + start, han - start, written,
                                    &first_token)
        written_out[0] = written
        return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, work.rest, kept)

    cdef Py_ssize_t _cut_run(self, _Work work, int32_t* run, Py_ssize_t n, Py_ssize_t written,
                             bint* first_token) noexcept:
        """jieba's ``__cut_DAG`` of one Han run (character offsets); appends its tokens."""
        cdef double* route = work.route
        cdef int32_t* route_end = work.route_end
        cdef double* scores = work.scores
        cdef unsigned char* back = work.back
        cdef unsigned char* states = work.states
        cdef char* out = work.out
        cdef Py_ssize_t index, x, y, end, buffered
        cdef Prefix* prefix
        cdef double best, candidate
        cdef Py_ssize_t best_end
        cdef bint found
        # calc(): the best route from the right, over the DAG of dictionary words.
        route[n] = 0.0
        for index in range(n - 1, -1, -1):
            found = False
            best = 0.0
            best_end = index
            prefix = self._find(NULL, run[index])
            x = index
            while prefix is not NULL:
                if prefix.word_log != NOT_A_WORD:
                    candidate = prefix.word_log - self.log_total + route[x + 1]
                    if not found or candidate >= best:  # ties: the longer word (max of tuples)
                        best = candidate
                        best_end = x
                        found = True
                x += 1
                if x == n:
                    break
                prefix = self._find(prefix, run[x])
            if not found:  # log(FREQ.get(char) or 1) == 0
                best = 0.0 - self.log_total + route[index + 1]
                best_end = index
            route[index] = best
            route_end[index] = <int32_t> best_end
        # __cut_DAG(): words of the route; runs of single characters go to the HMM unless they
        # spell a dictionary word.
        x = 0
        buffered = 0  # single characters waiting, ending at x
        while x < n:
            y = route_end[x] + 1
            if y - x == 1:
                buffered += 1
            else:
                if buffered:
                    written = self._flush(run + x - buffered, buffered, scores, back, states,
                                          out, written, first_token)
                    buffered = 0
                written = _emit(run + x, y - x, out, written, first_token)
            x = y
        if buffered:
            written = self._flush(run + n - buffered, buffered, scores, back, states, out,
                                  written, first_token)
        return written

    cdef Py_ssize_t _flush(self, int32_t* run, Py_ssize_t n, double* scores,
                           unsigned char* back, unsigned char* states, char* out,
                           Py_ssize_t written, bint* first_token) noexcept nogil:
        """Single characters of the route: one token, one per character (a dictionary word),
        or the HMM's words (finalseg.cut)."""
        cdef Py_ssize_t i
        cdef Prefix* prefix
        if n == 1:
            return _emit(run, 1, out, written, first_token)
        prefix = self._find(NULL, run[0])
        i = 1
        while prefix is not NULL and i < n:
            prefix = self._find(prefix, run[i])
            i += 1
        if prefix is not NULL and prefix.word_log != NOT_A_WORD:
            for i in range(n):
                written = _emit(run + i, 1, out, written, first_token)
            return written
        return self._hmm(run, n, scores, back, states, out, written, first_token)

    cdef Py_ssize_t _hmm(self, int32_t* run, Py_ssize_t n, double* scores,
                         unsigned char* back, unsigned char* states, char* out,
                         Py_ssize_t written, bint* first_token) noexcept nogil:
        """finalseg's Viterbi over states B, E, M, S, then its words."""
        cdef Py_ssize_t t, i, begin, next_index
        cdef int state, previous, first, second, chosen
        cdef double emitted, a, b
        # jieba's PrevStatus, each pair in the order max() sees it.
        cdef int before[4][2]
        before[B][0] = E
        before[B][1] = S
        before[E][0] = B
        before[E][1] = M
        before[M][0] = M
        before[M][1] = B
        before[S][0] = S
        before[S][1] = E
        for state in range(4):
            scores[state] = self.start[state] + self.emit[state * HAN_COUNT + run[0]]
        for t in range(1, n):
            for state in range(4):
                emitted = self.emit[state * HAN_COUNT + run[t]]
                first = before[state][0]
                second = before[state][1]
                a = scores[(t - 1) * 4 + first] + self.trans[first][state] + emitted
                b = scores[(t - 1) * 4 + second] + self.trans[second][state] + emitted
                # max((a, first), (b, second)): ties go to the later state letter
                if a > b or (a == b and first > second):
                    scores[t * 4 + state] = a
                    back[t * 4 + state] = first
                else:
                    scores[t * 4 + state] = b
                    back[t * 4 + state] = second
        a = scores[(n - 1) * 4 + E]
        b = scores[(n - 1) * 4 + S]
        chosen = S if b >= a else E  # max((V[E], "E"), (V[S], "S"))
        for t in range(n - 1, -1, -1):
            states[t] = chosen
            if t:
                chosen = back[t * 4 + chosen]
        begin = 0
        next_index = 0
        for i in range(n):
            state = states[i]
            if state == B:
                begin = i
            elif state == E:
                written = _emit(run + begin, i + 1 - begin, out, written, first_token)
                next_index = i + 1
            elif state == S:
                written = _emit(run + i, 1, out, written, first_token)
                next_index = i + 1
        if next_index < n:
            written = _emit(run + next_index, n - next_index, out, written, first_token)
        return written


cdef inline Py_ssize_t _emit(int32_t* run, Py_ssize_t n, char* out, Py_ssize_t written,
                             bint* first_token) noexcept nogil:
    """Append one token (``n`` Han characters, 3 UTF-8 bytes each), after a newline."""
    cdef Py_ssize_t i
    cdef uint64_t code
    if not first_token[0]:
        out[written] = 10
        written += 1
    first_token[0] = False
    for i in range(n):
        code = <uint64_t> run[i] + HAN_FIRST
        out[written] = <char> (0xE0 | (code >> 12))
        out[written + 1] = <char> (0x80 | ((code >> 6) & 0x3F))
        out[written + 2] = <char> (0x80 | (code & 0x3F))
        written += 3
    return written
