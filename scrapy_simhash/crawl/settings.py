"""The ``SIMHASH_*`` Scrapy settings: their defaults, and reading + validating them at start-up.

Every setting is read once, when a component is built (``from_crawler``); a bad value raises
:class:`SimhashSettingError`, which names the setting, the value and what is allowed, so the
crawl fails at start-up instead of misbehaving later. Fingerprint settings left at ``None`` use the
library's defaults (:class:`~scrapy_simhash.fingerprint.Fingerprinter`), so tuning the library
tunes the crawl. :func:`build_detector` turns the settings into the detector, in the crawl and in
each worker process (which so never imports the crawl's Twisted side).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit
from urllib.request import url2pathname

from scrapy.settings import SETTINGS_PRIORITIES, BaseSettings

from scrapy_simhash.detectors import ALGORITHMS, Detector
from scrapy_simhash.index.uri import CLASS_SCHEME, parse_index_uri, sqlite_uri
from scrapy_simhash.simhash import ParameterError

ON_INDEX_ERROR_CHOICES = ("keep", "drop", "stop")
#: The index a crawl with Scrapy's ``JOBDIR`` keeps there, unless SIMHASH_INDEX_URI names one.
JOBDIR_INDEX_FILE = "simhash.sqlite"

#: Every setting with its default value (``None``: the library's default).
DEFAULTS: dict[str, Any] = {
    "SIMHASH_ENABLED": True,
    "SIMHASH_ALGORITHM": "simhash",
    "SIMHASH_ALGORITHM_OPTIONS": {},
    "SIMHASH_INDEX_URI": "memory://",
    "SIMHASH_INDEX_OPTIONS": {},
    "SIMHASH_BITS": None,
    "SIMHASH_MAX_DISTANCE": None,
    "SIMHASH_TOKENIZER": None,
    "SIMHASH_FEATURES": None,
    "SIMHASH_WEIGHTING": None,
    "SIMHASH_MIN_TOKENS": None,
    "SIMHASH_FOLD_TRADITIONAL": None,
    "SIMHASH_EXTRACTOR": None,
    "SIMHASH_FINGERPRINT_OPTIONS": {},
    "SIMHASH_ITEM_FIELDS": ["title", "body"],
    "SIMHASH_ITEM_KEY_FIELD": "url",
    "SIMHASH_ITEM_MAIN_TEXT": True,
    "SIMHASH_ON_INDEX_ERROR": "keep",
    "SIMHASH_DRY_RUN": False,
    "SIMHASH_URL_RULES": False,  # the add-on turns it on
    "SIMHASH_REPORT_FILE": None,
    "SIMHASH_MAX_BODY_SIZE": 10 * 1024 * 1024,
    "SIMHASH_WORKERS": "auto",
    "SIMHASH_WORKER_TIMEOUT": 60.0,
    "SIMHASH_INDEX_TIMEOUT": None,  # by backend: see indexcalls.default_timeout
}

#: Fingerprinter keyword argument -> the setting that holds it.
FINGERPRINT_SETTINGS: dict[str, str] = {
    "bits": "SIMHASH_BITS",
    "max_distance": "SIMHASH_MAX_DISTANCE",
    "tokenizer": "SIMHASH_TOKENIZER",
    "features": "SIMHASH_FEATURES",
    "weighting": "SIMHASH_WEIGHTING",
    "min_tokens": "SIMHASH_MIN_TOKENS",
    "fold_traditional": "SIMHASH_FOLD_TRADITIONAL",
    "extractor": "SIMHASH_EXTRACTOR",
}


class SimhashSettingError(ValueError):
    """A ``SIMHASH_*`` setting has a value the plugin cannot use (raised at start-up)."""

    def __init__(self, name: str, value: Any, allowed: str) -> None:
        super().__init__(f"{name}={value!r} is invalid: {allowed}")
        self.setting = name


@dataclass(frozen=True)
class SimhashConfig:
    """The validated ``SIMHASH_*`` settings of one crawler."""

    enabled: bool = True
    algorithm: str = "simhash"
    algorithm_options: dict[str, Any] = field(default_factory=dict)
    index_uri: str = "memory://"
    index_options: dict[str, Any] = field(default_factory=dict)
    fingerprint_kwargs: dict[str, Any] = field(default_factory=dict)
    #: The setting each of ``fingerprint_kwargs`` came from (for error messages).
    fingerprint_settings: dict[str, str] = field(default_factory=dict)
    item_fields: tuple[str, ...] = ("title", "body")
    item_key_field: str | None = "url"
    #: An item field holding a whole page (HTML, or its visible text) is checked as a page.
    item_main_text: bool = True
    on_index_error: str = "keep"
    #: Decide, count and report every drop, but drop nothing.
    dry_run: bool = False
    #: Learn URL rewrite rules from the drops and skip the requests they say are duplicates.
    url_rules: bool = False
    report_file: str | None = None
    jobdir: str | None = None  # Scrapy's JOBDIR: a job paused and resumed across crawls
    max_body_size: int = DEFAULTS["SIMHASH_MAX_BODY_SIZE"]
    workers: int | str = DEFAULTS["SIMHASH_WORKERS"]  # a count, or "auto"; 0: inline
    worker_timeout: float = DEFAULTS["SIMHASH_WORKER_TIMEOUT"]
    #: Seconds an SQLite or Redis index call may take before its page is decided without it
    #: (``SIMHASH_ON_INDEX_ERROR``); 0: the calls run on the reactor thread, as they return;
    #: None: the backend's default.
    index_timeout: float | None = DEFAULTS["SIMHASH_INDEX_TIMEOUT"]


def _raw(settings: BaseSettings, name: str) -> Any:
    return settings.get(name, DEFAULTS[name])


def read_bool(settings: BaseSettings, name: str) -> bool | None:
    """A boolean setting; accepts bools, 0/1 and the strings true/false/yes/no/on/off."""
    value = _raw(settings, name)
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in ("1", "true", "yes", "on"):
            return True
        if lowered in ("0", "false", "no", "off"):
            return False
    raise SimhashSettingError(name, value, "allowed values are True or False")


_INTEGER = re.compile(r"-?[0-9]+")  # as `scrapy crawl -s NAME=VALUE` gives it (ASCII digits)


def _as_int(value: Any) -> int | None:
    """An int, or a string of ASCII digits, as an int; anything else (bools too): None."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and _INTEGER.fullmatch(value.strip()):
        return int(value)
    return None


def read_int(
    settings: BaseSettings, name: str, *, minimum: int, maximum: int | None = None
) -> int | None:
    """An integer setting within [minimum, maximum] (``None`` passes through)."""
    value = _raw(settings, name)
    if value is None:
        return None
    number = _as_int(value)
    bounds = f"an integer >= {minimum}" + (f" and <= {maximum}" if maximum is not None else "")
    if number is None or number < minimum or (maximum is not None and number > maximum):
        raise SimhashSettingError(name, value, f"expected {bounds}")
    return number


def read_bits(settings: BaseSettings, name: str) -> int | None:
    """``SIMHASH_BITS``: one of the fingerprint widths the library supports (``None`` passes)."""
    from scrapy_simhash.simhash import SUPPORTED_BITS

    value = _raw(settings, name)
    if value is None:
        return None
    number = _as_int(value)
    if number not in SUPPORTED_BITS:
        allowed = " or ".join(str(bits) for bits in SUPPORTED_BITS)
        raise SimhashSettingError(name, value, f"allowed values are {allowed}")
    return number


def read_choice(settings: BaseSettings, name: str, choices: tuple[str, ...]) -> str:
    value = _raw(settings, name)
    if not isinstance(value, str) or value.strip().lower() not in choices:
        allowed = ", ".join(repr(choice) for choice in choices)
        raise SimhashSettingError(name, value, f"allowed values are {allowed}")
    return value.strip().lower()


def read_str_list(settings: BaseSettings, name: str) -> tuple[str, ...]:
    """A non-empty list of names; a comma-separated string or a JSON array is accepted (command
    line ``-s``)."""
    value = _raw(settings, name)
    if isinstance(value, str) and value.lstrip().startswith("["):
        try:
            value = json.loads(value)
        except ValueError:
            raise SimhashSettingError(name, value, "expected a JSON array of field names") from None
    elif isinstance(value, str):
        value = [part.strip() for part in value.split(",")]
    if not isinstance(value, (list, tuple)) or not value:
        raise SimhashSettingError(name, value, "expected a non-empty list of field names")
    if not all(isinstance(part, str) and part for part in value):
        raise SimhashSettingError(name, value, "expected a non-empty list of field names")
    return tuple(value)


def read_field_name(settings: BaseSettings, name: str) -> str | None:
    """One field name, or None (``""`` too)."""
    value = _raw(settings, name)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise SimhashSettingError(name, value, "expected a field name (str) or None")
    return value.strip() or None


def read_dict(settings: BaseSettings, name: str) -> dict[str, Any]:
    value = _raw(settings, name)
    if value is None:
        return {}
    if isinstance(value, BaseSettings):
        return value.copy_to_dict()
    if isinstance(value, str):
        try:
            return dict(settings.getdict(name))
        except (ValueError, TypeError) as error:  # not JSON, or JSON that is not an object
            raise SimhashSettingError(name, value, "expected a dict (or a JSON object)") from error
    if not isinstance(value, Mapping):
        raise SimhashSettingError(name, value, "expected a dict (or a JSON object)")
    return dict(value)


def read_index_uri(settings: BaseSettings) -> str:
    """``memory://``, ``sqlite:///path.db``, ``redis://...`` or an index class's dotted path.

    Left at its default in a crawl with ``JOBDIR``, the index is an SQLite file in that folder
    (:data:`JOBDIR_INDEX_FILE`), as Scrapy keeps its seen requests there: a resumed job goes on
    deduplicating against the pages of its earlier runs.
    """
    name = "SIMHASH_INDEX_URI"
    value = _raw(settings, name)
    jobdir = settings.get("JOBDIR")
    if jobdir and value == DEFAULTS[name] and _left_at_default(settings, name):
        return sqlite_uri(Path(jobdir) / JOBDIR_INDEX_FILE)  # escaped: any folder name works
    allowed = "expected memory://, sqlite:///path/to.db, redis://host:port/db or a class path"
    if not isinstance(value, str) or not value.strip():
        raise SimhashSettingError(name, value, allowed)
    uri = value.strip()
    try:
        parsed = parse_index_uri(uri)
        if parsed.scheme == CLASS_SCHEME:
            parsed.load_class()
    except (ImportError, ValueError) as error:
        raise SimhashSettingError(name, value, f"{allowed} ({error})") from error
    return uri


def _left_at_default(settings: BaseSettings, name: str) -> bool:
    """Whether ``name`` is unset, or set by an add-on only (``scrapy_simhash.Addon``)."""
    priority = settings.getpriority(name)
    return priority is None or priority <= SETTINGS_PRIORITIES["addon"]


def read_workers(settings: BaseSettings) -> int | str:
    """``SIMHASH_WORKERS``: ``"auto"`` or a count of worker processes (0: inline)."""
    name = "SIMHASH_WORKERS"
    value = _raw(settings, name)
    if isinstance(value, str) and value.strip().lower() == "auto":
        return "auto"
    try:
        return read_int(settings, name, minimum=0, maximum=64) or 0
    except SimhashSettingError:
        raise SimhashSettingError(
            name, value, "expected 'auto' or an integer >= 0 and <= 64 (0: no worker processes)"
        ) from None


def read_positive_float(settings: BaseSettings, name: str) -> float:
    value = _raw(settings, name)
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = float("nan")
    if isinstance(value, bool) or not number > 0 or number == float("inf"):
        raise SimhashSettingError(name, value, "expected a number of seconds > 0")
    return number


def read_index_timeout(settings: BaseSettings) -> float | None:
    """``SIMHASH_INDEX_TIMEOUT``: seconds >= 0 (0: index calls on the reactor thread), or None
    (the backend's default)."""
    name = "SIMHASH_INDEX_TIMEOUT"
    value = _raw(settings, name)
    if value is None or value == "":
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = float("nan")
    if isinstance(value, bool) or not 0 <= number < float("inf"):
        raise SimhashSettingError(
            name, value, "expected a number of seconds >= 0 (0: call the index on the reactor)"
        )
    return number


def read_report_file(settings: BaseSettings) -> str | None:
    """A local path or ``file://`` URI, which may name ``%(name)s`` (the spider's name),
    ``%(time)s`` or another spider attribute, as Scrapy's ``FEEDS`` do."""
    name = "SIMHASH_REPORT_FILE"
    value = _raw(settings, name)
    if value is None or value == "":
        return None
    allowed = "expected a file path or a file:// URI (str), or None"
    if not isinstance(value, str):
        raise SimhashSettingError(name, value, allowed)
    if "://" in value:
        parts = urlsplit(value)
        if parts.scheme.lower() != "file" or parts.netloc not in ("", "localhost"):
            raise SimhashSettingError(name, value, f"{allowed}: the report is written locally")
        return url2pathname(parts.path)  # percent-escapes decoded
    return value


def _fingerprint_arguments(settings: BaseSettings) -> dict[str, tuple[Any, str]]:
    """Keyword arguments for the Fingerprinter, argument -> (value, the setting it came from):
    only the settings that are not ``None``; a dedicated setting wins over the same key of
    ``SIMHASH_FINGERPRINT_OPTIONS``."""
    arguments = {
        argument: (value, "SIMHASH_FINGERPRINT_OPTIONS")
        for argument, value in read_dict(settings, "SIMHASH_FINGERPRINT_OPTIONS").items()
    }
    readers = {
        "bits": lambda name: read_bits(settings, name),
        "max_distance": lambda name: read_int(settings, name, minimum=0),
        "min_tokens": lambda name: read_int(settings, name, minimum=1),
        "fold_traditional": lambda name: read_bool(settings, name),
    }
    for argument, name in FINGERPRINT_SETTINGS.items():
        reader = readers.get(argument, lambda name: _raw(settings, name))
        value = reader(name)
        if value is not None:
            arguments[argument] = (value, name)
    return arguments


def load_config(settings: BaseSettings) -> SimhashConfig:
    """Read and validate every ``SIMHASH_*`` setting; raises :class:`SimhashSettingError`."""
    arguments = _fingerprint_arguments(settings)
    return SimhashConfig(
        enabled=bool(read_bool(settings, "SIMHASH_ENABLED")),
        algorithm=read_choice(settings, "SIMHASH_ALGORITHM", ALGORITHMS),
        algorithm_options=read_dict(settings, "SIMHASH_ALGORITHM_OPTIONS"),
        index_uri=read_index_uri(settings),
        index_options=read_dict(settings, "SIMHASH_INDEX_OPTIONS"),
        fingerprint_kwargs={argument: value for argument, (value, _) in arguments.items()},
        fingerprint_settings={argument: name for argument, (_, name) in arguments.items()},
        item_fields=read_str_list(settings, "SIMHASH_ITEM_FIELDS"),
        item_key_field=read_field_name(settings, "SIMHASH_ITEM_KEY_FIELD"),
        item_main_text=bool(read_bool(settings, "SIMHASH_ITEM_MAIN_TEXT")),
        on_index_error=read_choice(settings, "SIMHASH_ON_INDEX_ERROR", ON_INDEX_ERROR_CHOICES),
        dry_run=bool(read_bool(settings, "SIMHASH_DRY_RUN")),
        url_rules=bool(read_bool(settings, "SIMHASH_URL_RULES")),
        report_file=read_report_file(settings),
        jobdir=settings.get("JOBDIR") or None,
        max_body_size=read_int(settings, "SIMHASH_MAX_BODY_SIZE", minimum=1)
        or DEFAULTS["SIMHASH_MAX_BODY_SIZE"],
        workers=read_workers(settings),
        worker_timeout=read_positive_float(settings, "SIMHASH_WORKER_TIMEOUT"),
        index_timeout=read_index_timeout(settings),
    )


def unknown_settings(settings: BaseSettings) -> list[tuple[str, str | None]]:
    """``SIMHASH_*`` names in ``settings`` that no setting has, each with the closest valid
    name (None when none is close): a misspelled setting otherwise changes nothing, silently."""
    import difflib

    known = {name.removeprefix("SIMHASH_"): name for name in DEFAULTS}
    found = []
    for name in sorted(settings.copy_to_dict()):
        if name.startswith("SIMHASH_") and name not in DEFAULTS:
            short = name.removeprefix("SIMHASH_")
            close = difflib.get_close_matches(short, known, 1, 0.75) or sorted(
                (known_name for known_name in known if known_name.startswith(f"{short}_")),
                key=lambda known_name: (len(known_name), known_name),
            )[:1]  # (SIMHASH_INDEX for SIMHASH_INDEX_URI: a name cut short)
            found.append((name, known[close[0]] if close else None))
    return found


def setting_for_error(
    error: Exception, kwargs: Mapping[str, Any], sources: Mapping[str, str] | None = None
) -> tuple[str, Any]:
    """The setting a Fingerprinter error is about and that setting's value: the one the
    parameter it names (:class:`~scrapy_simhash.simhash.ParameterError`'s ``name``) came from;
    all the fingerprint settings given, when it names none. ``sources``: the setting each
    argument came from (see :attr:`SimhashConfig.fingerprint_settings`); by default its
    dedicated one."""
    sources = sources or {}
    name = parameter_of(error)
    if name in kwargs:
        setting = sources.get(name) or FINGERPRINT_SETTINGS.get(name)
        if setting and setting != "SIMHASH_FINGERPRINT_OPTIONS":
            return setting, kwargs[name]
        return "SIMHASH_FINGERPRINT_OPTIONS", {name: kwargs[name]}
    named = dict.fromkeys(
        sources.get(arg) or FINGERPRINT_SETTINGS.get(arg) or "SIMHASH_FINGERPRINT_OPTIONS"
        for arg in kwargs
    )
    return ", ".join(named) or "SIMHASH_FINGERPRINT_OPTIONS", dict(kwargs)


def parameter_of(error: Exception) -> str | None:
    """The parameter a library error names in its ``name`` (None when it names none)."""
    return error.name if isinstance(error, ParameterError) else None


def _algorithm_option_error(algorithm: str, name: str | None, error: Exception) -> str:
    """What is wrong with SIMHASH_ALGORITHM_OPTIONS, in the setting's words: an option the
    algorithm does not take is named with the ones it does."""
    import inspect

    from scrapy_simhash.detectors import _DETECTORS

    unexpected = re.search(r"unexpected keyword argument '(\w+)'", str(error))
    if not isinstance(error, TypeError) or unexpected is None:
        return str(error)
    name = unexpected.group(1)
    cls = _DETECTORS.get(algorithm)
    own = [] if cls is None else [
        parameter for parameter in inspect.signature(cls.__init__).parameters
        if parameter not in ("self", "fingerprinter", "fingerprint_options")
    ]
    takes = (f"its options are {', '.join(own)}" if own else
             "it takes none (its threshold is SIMHASH_MAX_DISTANCE, in bits)")
    return f"{name!r} is not an option of SIMHASH_ALGORITHM={algorithm!r}: {takes}"


def build_detector(config: SimhashConfig, *, warm_up: bool = True) -> Detector:
    """The detector the settings describe; a bad value raises SimhashSettingError.

    ``warm_up``: make the one-time loads (jieba's dictionary, the tokenizer's tables, ~0.2 s)
    now rather than on the first page; a crawl's components make them when the spider opens,
    once their worker processes have been started (they load theirs meanwhile)."""
    from scrapy_simhash.detectors import get_detector

    kwargs = config.fingerprint_kwargs
    options = {**config.algorithm_options, **kwargs}
    try:
        detector = get_detector(config.algorithm, **options)
    except (ValueError, TypeError, ImportError) as error:
        name = parameter_of(error)
        names_a_setting = name in kwargs
        # a detector's own option, or an error naming no parameter while some are given
        if (name in config.algorithm_options and not names_a_setting) or (
            config.algorithm_options and name is None
        ):
            raise SimhashSettingError(
                "SIMHASH_ALGORITHM_OPTIONS", config.algorithm_options,
                _algorithm_option_error(config.algorithm, name, error),
            ) from error
        name, value = setting_for_error(error, kwargs, config.fingerprint_settings)
        raise SimhashSettingError(name, value, str(error)) from error
    try:  # resolve the extractor now: an unknown or missing one fails at start-up
        _ = detector.fingerprinter.extractor
    except (ValueError, TypeError, ImportError) as error:
        if "extractor" not in kwargs:
            raise  # the library's own default failed: not a settings problem
        raise SimhashSettingError("SIMHASH_EXTRACTOR", kwargs["extractor"], str(error)) from error
    if warm_up:
        detector.fingerprinter.warm_up()
    return detector
