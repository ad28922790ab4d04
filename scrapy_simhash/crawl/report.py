"""What the middleware and the pipeline of one crawl share: the duplicate report and the summary.

The duplicate report is a JSON-lines file (``SIMHASH_REPORT_FILE``), one object per dropped page
or item: ``{"kind": "page", "url": ..., "duplicate_of": ..., "distance": ...}``, then one per
learned URL rule (``{"kind": "url_rule", ...}``, see :meth:`CrawlSession.record_url_rule`). It
is written atomically: rows go to a temporary file beside it (``.<name>.<random>.tmp``) that
replaces the report when the crawl closes, so a reader never sees half a report; a killed crawl
leaves the previous report intact (plus its temporary file), and so does a crawl stopped at
start-up because its index could not be used. The summary is one INFO line logged when the last
simhash component of the crawl closes, built from the crawl stats.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import shutil
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, TYPE_CHECKING, ClassVar
from weakref import WeakKeyDictionary

from scrapy_simhash.crawl.settings import SimhashSettingError

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

logger = logging.getLogger(__name__)

STATS_PREFIX = "simhash/"


#: In a ``JOBDIR``: the report file the job's last run wrote (its next run adds to it).
JOB_REPORT_MARKER = "simhash.report"


class DuplicateReport:
    """A JSON-lines file of dropped duplicates, replaced atomically by each crawl.

    ``resume``: this crawl continues a job (Scrapy's ``JOBDIR``) whose earlier run wrote the
    report; its rows come first in the new one.
    """

    def __init__(self, path: str | Path, *, resume: bool = False) -> None:
        self.path = Path(path)
        self.resume = resume
        self._file: IO[str] | None = None
        self._temp: str | None = None
        self.rows = 0  # rows given to this crawl's report

    def open(self) -> None:
        """Start this crawl's rows in a temporary file (OSError if the path cannot be written)."""
        if self._file is None:
            if self.path.is_dir():  # os.replace would fail only when the crawl closes
                raise IsADirectoryError(errno.EISDIR, "is a directory", str(self.path))
            self.path.parent.mkdir(parents=True, exist_ok=True)
            handle, self._temp = tempfile.mkstemp(
                prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent
            )
            self._file = open(handle, "w", encoding="utf-8")  # noqa: SIM115 - closed in close()
            try:
                if self.resume and self.path.is_file():  # its bytes as they are, not decoded
                    with open(self.path, "rb") as previous:
                        shutil.copyfileobj(previous, self._file.buffer)  # (nothing buffered yet)
            except BaseException:  # a full disk, say: no temporary file left behind
                self.discard()
                raise

    def write(self, kind: str, url: str, duplicate_of: str | None, distance: int | None,
              **flags: bool) -> None:
        self.write_row({"kind": kind, "url": url, "duplicate_of": duplicate_of,
                        "distance": distance, **flags})

    def write_row(self, row: dict) -> None:
        if self._file is None:
            self.open()
        assert self._file is not None
        self.rows += 1
        self._file.write(json.dumps(row, ensure_ascii=False) + "\n")

    def close(self) -> None:
        """Make the report durable and move it into place (``os.replace``)."""
        if self._file is None:
            return
        stream, temp = self._file, self._temp
        try:
            stream.flush()
            os.fsync(stream.fileno())
            stream.close()
            os.chmod(temp, 0o666 & ~_umask())
            os.replace(temp, self.path)
        finally:
            self.discard()  # what is left of the temporary file (nothing once it replaced)

    def discard(self) -> None:
        """Drop this crawl's rows and leave the previous report as it was."""
        if self._file is None:
            return
        stream, temp = self._file, self._temp
        self._file = self._temp = None
        try:
            stream.close()  # (closed even when its buffer cannot be written: a full disk)
        except OSError:
            pass
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class CrawlSession:
    """Per-crawler state shared by the simhash components (report file, one summary line)."""

    _sessions: ClassVar[WeakKeyDictionary[Crawler, CrawlSession]] = WeakKeyDictionary()

    def __init__(
        self, crawler: Crawler, report_file: str | None, jobdir: str | None = None
    ) -> None:
        self.crawler = crawler
        self.jobdir = Path(jobdir) if jobdir else None
        self.report: DuplicateReport | None = None
        if report_file:
            path = expand_report_path(report_file, crawler)
            self._check_not_shared(path, report_file)
            self.report = DuplicateReport(path, resume=self._job_wrote(path))
        self.index_unusable = False  # SIMHASH_INDEX_URI could not be opened: the crawl stops
        self.index_unreachable = False  # ... could not be reached: opened when it answers
        self.logged_causes: set[tuple[str, str]] = set()  # (where, error kind) logged already
        self._open_components: set[str] = set()

    def first(self, where: str, kind: str) -> bool:
        """Whether a cause (where, kind) is met for the first time this crawl (then recorded):
        each is logged once, the rest counted."""
        if (where, kind) in self.logged_causes:
            return False
        self.logged_causes.add((where, kind))
        return True

    @classmethod
    def of(
        cls, crawler: Crawler, report_file: str | None, jobdir: str | None = None
    ) -> CrawlSession:
        """The crawler's session, created by its first simhash component."""
        session = cls._sessions.get(crawler)
        if session is None:
            session = cls._sessions[crawler] = cls(crawler, report_file, jobdir)
        return session

    def _check_not_shared(self, path: str, setting: str) -> None:
        """Two crawls of one process writing one report would each replace the other's."""
        resolved = Path(path).resolve()
        for other in list(self._sessions.values()):
            report = other.report
            if not getattr(other.crawler, "crawling", True):  # failed at start-up, or stopped
                continue
            if report is not None and report.path.resolve() == resolved:
                spider = getattr(other.crawler.spider, "name", "?")
                raise SimhashSettingError(
                    "SIMHASH_REPORT_FILE", setting,
                    f"another crawl in this process (spider {spider!r}) writes {path}; "
                    "give each crawl its own file, e.g. with %(name)s in the path",
                )

    def _job_wrote(self, report_file: str) -> bool:
        """Whether an earlier run of this ``JOBDIR`` job wrote ``report_file``."""
        if self.jobdir is None:
            return False
        try:
            written = (self.jobdir / JOB_REPORT_MARKER).read_text(encoding="utf-8")
        except OSError:
            return False
        return written == str(Path(report_file).resolve())

    def _remember_report(self, report: DuplicateReport) -> None:
        if self.jobdir is None:
            return
        try:
            self.jobdir.mkdir(parents=True, exist_ok=True)
            marker = self.jobdir / JOB_REPORT_MARKER
            marker.write_text(str(report.path.resolve()), encoding="utf-8")
        except OSError as error:
            logger.warning(
                "Simhash: cannot note the duplicate report in JOBDIR (%s: %s); if this job is "
                "resumed, its next run starts a new report.",
                type(error).__name__, error, extra={"crawler": self.crawler},
            )

    def component_opened(self, name: str) -> bool:
        """Count ``name`` in until it closes; False (for the first component only) if the
        report file cannot be written: that is logged, and no report is written this crawl."""
        self._open_components.add(name)
        if self.report is None:
            return True
        try:
            self.report.open()
        except OSError as error:
            logger.error(
                "Simhash: cannot write the duplicate report SIMHASH_REPORT_FILE=%r (%s: %s). "
                "Stopping the crawl.",
                str(self.report.path), type(error).__name__, error,
                extra={"crawler": self.crawler},
            )
            self.report = None
            return False
        return True

    def record_duplicate(
        self, kind: str, url: str, duplicate_of: str | None, distance: int | None, **flags: bool
    ) -> None:
        """A row of the report (``flags``: ``dry_run`` for a drop SIMHASH_DRY_RUN did not make,
        ``refetched`` for a drop taken back: the page is fetched again). If the file cannot be
        written (a full disk, say), this crawl's report is given up: logged once, counted in
        ``simhash/report/errors``, the previous report left as it was, and the crawl goes on."""
        self._record({"kind": kind, "url": url, "duplicate_of": duplicate_of,
                      "distance": distance, **flags})

    def record_url_rule(self, description: str, **details: object) -> None:
        """A row of the report for a learned URL rule: ``{"kind": "url_rule", "id": <what it
        says>, "host": ..., "rewrite": "param" | "segment" | "index", "name": ...,
        "confirmations": ..., "skipped": <requests not downloaded>, "retired": ...}``."""
        self._record({"kind": "url_rule", "id": description, **details})

    def _record(self, row: dict) -> None:
        report = self.report
        if report is None:
            return
        try:
            report.write_row(row)
        except OSError as error:
            self.report = None
            report.discard()
            if self.crawler.stats is not None:
                self.crawler.stats.inc_value(STATS_PREFIX + "report/errors")
            logger.error(
                "Simhash: cannot write the duplicate report SIMHASH_REPORT_FILE=%r (%s: %s); "
                "this crawl writes none (the previous report is left as it was): its %d rows "
                "so far and the later ones are lost, the drops still count in the stats.",
                str(report.path), type(error).__name__, error, report.rows,
                extra={"crawler": self.crawler},
            )

    def component_closed(self, name: str) -> None:
        """Close the report and log the summary once every component has closed."""
        self._open_components.discard(name)
        if self._open_components:
            return
        report, self.report = self.report, None
        try:
            if report is not None and self.index_unusable:  # stopped at start-up: no report
                report.discard()
            elif report is not None:
                report.close()
                self._remember_report(report)
        except OSError as error:
            logger.error(
                "Simhash: cannot write the duplicate report SIMHASH_REPORT_FILE=%r (%s: %s); "
                "this crawl's rows are lost.",
                str(report.path), type(error).__name__, error, extra={"crawler": self.crawler},
            )
        stats = self.crawler.stats.get_stats() if self.crawler.stats else {}
        logger.info("%s", summary_line(stats), extra={"crawler": self.crawler})
        self._sessions.pop(self.crawler, None)  # the session refers to its crawler: not kept


def expand_report_path(template: str, crawler: Crawler) -> str:
    """``template`` with ``%(name)s`` (the spider's name), ``%(time)s`` (the UTC start time,
    as in Scrapy's ``FEEDS``) or ``%(<attribute>)s`` of the spider filled in."""
    if "%(" not in template:
        return template
    spider = crawler.spider
    started = datetime.now(tz=timezone.utc).replace(microsecond=0).isoformat().replace(":", "-")
    params = _SpiderParams(spider, started)
    try:
        return template % params
    except (KeyError, ValueError, TypeError) as error:
        raise SimhashSettingError(
            "SIMHASH_REPORT_FILE", template,
            f"%(...)s may name the spider's attributes and time ({type(error).__name__}: "
            f"{error})",
        ) from None


class _SpiderParams(dict):
    """``%(key)s`` values: ``time``, else the spider's attribute ``key``."""

    def __init__(self, spider: object, started: str) -> None:
        super().__init__(time=started)
        self.spider = spider

    def __missing__(self, key: str) -> object:
        try:
            return getattr(self.spider, key)
        except AttributeError:
            raise KeyError(f"the spider has no attribute {key!r}") from None


def summary_line(stats: dict) -> str:
    """One line from the ``simhash/`` stats, e.g. ``Simhash: pages 40 checked, 9 dropped ...``."""

    def count(key: str) -> int:
        return int(stats.get(STATS_PREFIX + key, 0))

    parts = []
    for namespace in ("pages", "items"):
        checked = count(f"{namespace}/checked")
        skips = {
            key.rsplit("/", 1)[1]: int(value)
            for key, value in sorted(stats.items())
            if key.startswith(f"{STATS_PREFIX}{namespace}/skipped/")
        }
        if not checked and not skips:
            continue
        unchecked_drops = count(f"{namespace}/dropped/index_error")
        unchecked_keeps = count(f"{namespace}/kept/index_error")
        dropped = count(f"{namespace}/dropped") - unchecked_drops
        dry_run = count(f"{namespace}/dropped/dry_run")
        text = f"{namespace} {checked} checked, "
        refetched = count(f"{namespace}/refetched")
        if dry_run:
            text += f"{dry_run} would be dropped as near-duplicates (SIMHASH_DRY_RUN: none was)"
        else:
            # (a drop taken back is no drop: its page was fetched again, and counted again)
            text += f"{max(0, dropped - refetched)} dropped as near-duplicates"
        if refetched:
            text += (f" ({refetched} more dropped, then fetched again: the page they matched "
                     "turned out to be no content or a template)")
        if unchecked_drops:
            text += f", {unchecked_drops} dropped unchecked (index errors)"
        text += f", {count(f'{namespace}/kept')} kept"
        if unchecked_keeps:
            text += f" ({unchecked_keeps} unchecked: index errors)"
        standing = skips.pop("page_kept", 0)  # items (see crawl/pageitems.py)
        if standing:
            text += f", {standing} not checked (each the only item of a page kept)"
        if skips:
            detail = ", ".join(f"{reason} {number}" for reason, number in skips.items())
            text += f", {sum(skips.values())} skipped ({detail})"
        seconds = float(stats.get(f"{STATS_PREFIX}time/{namespace}/fingerprint", 0.0)) + float(
            stats.get(f"{STATS_PREFIX}time/{namespace}/index", 0.0)
        )
        if checked:
            text += f", {1000 * seconds / checked:.2f} ms each"
        text += f"; index holds {count(f'index/{namespace}/size')} {namespace}"
        withdrawn = count(f"{namespace}/withdrawn")
        if withdrawn:
            text += f" ({withdrawn} withdrawn as no content)"
        parts.append(text)
    skipped_urls = count("urls/skipped")
    if skipped_urls:  # (learned URL rules: requests never downloaded)
        text = f"{skipped_urls} requests not downloaded by learned URL rules"
        refetched_urls = count("urls/refetched")
        if refetched_urls:
            text += f" ({refetched_urls} fetched after all: their rule was retired)"
        parts.append(text)
    errors = count("index/errors")
    if errors:
        parts.append(f"{errors} index error{'s' if errors != 1 else ''}")
    return "Simhash: " + ("; ".join(parts) if parts else "nothing checked")
