"""Documentation pages of one template whose long shared notes outweigh what each page is about:
an SDK's method reference (a method's own description and parameters above the same notes on
retries, errors and permissions) and a project's patch release notes (one or two fixes above the
same upgrade notes, known issues and compatibility). What tells them apart is in the title, spelt
as code spells it ("get_object", "2.3.10"), and in a few lines of the text."""

from __future__ import annotations

from .chrome import Site, esc, links, render

Page = tuple[str, str]

SDK = Site(
    name="Quarry Storage SDK",
    domain="docs.quarry-storage.example",
    tagline="Object storage for every language",
    nav=("Guides", "API reference", "Examples", "Changelog", "Support"),
)

#: Read on every method's page, after the method's own text.
SDK_NOTES = (
    "Arguments. Every parameter is passed by keyword: positional arguments are not accepted, "
    "and an unknown keyword raises a ParamValidationError before any request is sent. Strings "
    "are sent as UTF-8, and values that are not valid UTF-8 are refused by the client itself. "
    "Boolean parameters take only True or False, and dates are datetime objects or ISO strings.",
    "Retries. Every call is retried up to three times when the service answers with a throttling "
    "error or a server error, waiting longer before each attempt (100 ms, 400 ms, 1.6 s) with a "
    "little random jitter so that many clients do not retry together. Client errors such as a "
    "missing bucket or a refused permission are never retried, and a call that times out is "
    "retried only when it is safe to repeat.",
    "Errors. A failed call raises a ClientError whose code names the cause (NoSuchBucket, "
    "NoSuchKey, AccessDenied, PreconditionFailed, SlowDown) and whose request id identifies the "
    "call in the service's logs; quote it when you contact support. Network failures raise a "
    "ConnectionError after the retries are spent.",
    "Permissions. The credentials the client was created with must allow the action on the "
    "bucket, and on the key when the policy names keys; a policy that denies the action wins over "
    "any that allows it. Temporary credentials expire: the client refreshes them from the "
    "configured provider before they do, so a long-running program needs no code of its own.",
    "Pagination and limits. Calls that list return at most 1,000 entries and a continuation "
    "token; pass the token to the next call, or use the paginator, which does it for you. Keys "
    "are at most 1,024 bytes of UTF-8, and one request may carry at most 5 GB of data: upload "
    "larger objects in parts.",
)

#: What the parameters of several methods mean (the same words on every page that has one).
PARAMETERS = {
    "bucket": "The name of the bucket that holds the object or objects; required.",
    "key": "The object's key, its name inside the bucket; required.",
    "version_id": "The version of the object to act on; the newest when not given.",
    "prefix": "Only keys that begin with this prefix are listed.",
    "delimiter": "A character that groups keys, the way folders are shown.",
    "max_keys": "The most keys one response returns (1,000 when not given).",
    "metadata": "User metadata to store with the object, as a mapping of strings.",
}

#: (method, what it does, its parameters)
METHODS = (
    ("get_object", "Downloads an object's data and metadata from a bucket. The body is a stream: "
     "read it, or pass it to a file, before the connection is reused.",
     ("bucket", "key", "version_id", "range", "if_match")),
    ("put_object", "Uploads data as an object, replacing an object of the same key unless "
     "versioning keeps the older one. The data may be bytes, a file or a stream of known size.",
     ("bucket", "key", "body", "content_type", "metadata")),
    ("delete_object", "Removes an object. With versioning enabled it adds a delete marker "
     "instead, and the object's older versions stay until they are removed by version id.",
     ("bucket", "key", "version_id", "bypass_governance")),
    ("head_object", "Reads an object's metadata without its data: size, type, entity tag, "
     "last modification and user metadata, to check that an object exists and has not changed.",
     ("bucket", "key", "version_id", "if_none_match")),
    ("copy_object", "Copies an object to another key or bucket inside the service, without "
     "downloading it, optionally replacing its metadata or storage class on the way.",
     ("source_bucket", "source_key", "bucket", "key", "metadata_directive")),
    ("list_objects", "Lists the keys of a bucket in alphabetical order, optionally under a "
     "prefix and grouped by a delimiter into common prefixes, the way folders are shown.",
     ("bucket", "prefix", "delimiter", "marker", "max_keys")),
    ("list_objects_v2", "Lists the keys of a bucket like list_objects, but pages with a "
     "continuation token rather than a marker, and can start after a given key.",
     ("bucket", "prefix", "continuation_token", "start_after", "max_keys")),
    ("create_bucket", "Creates a bucket in a region. Bucket names are global: a name another "
     "account already uses is refused with BucketAlreadyExists.",
     ("bucket", "region", "acl", "object_lock_enabled")),
    ("delete_bucket", "Removes an empty bucket. A bucket that still holds objects or object "
     "versions is refused with BucketNotEmpty: remove them first.",
     ("bucket", "expected_owner")),
    ("restore_object", "Brings an archived object back for a number of days so that it can be "
     "read, at one of three speeds, each at its own price.",
     ("bucket", "key", "days", "tier")),
)


def api_methods() -> list[Page]:
    """One page per SDK method: its description, signature and parameters above the same long
    notes; the method's name, in snake_case, is the title."""
    pages = []
    menu = links([(name, f"/api/client/{name}.html") for name, _, _ in METHODS], "api-menu")
    notes = "".join(f"<p>{esc(note)}</p>" for note in SDK_NOTES)
    for name, what, params in METHODS:
        signature = f"client.{name}({', '.join(f'{p}=...' for p in params)})"
        rows = "".join(f"<li><code>{p}</code>: {esc(PARAMETERS.get(p, 'See the guide.'))}</li>"
                       for p in params)
        main = (
            f'<article class="api-method"><h1>Client.{name}</h1><p>{esc(what)}</p>'
            f"<h2>Request syntax</h2><pre><code>{esc(signature)}</code></pre>"
            f"<h2>Parameters</h2><ul>{rows}</ul><h2>Notes</h2>{notes}</article>"
        )
        pages.append((
            f"https://{SDK.domain}/api/client/{name}.html",
            render(SDK, title=f"Client.{name}", main=main, sidebar=menu,
                   breadcrumbs=[("API reference", "/api/"), ("Client", "/api/client/")]),
        ))
    return pages


DATABASE = Site(
    name="Tessera Database",
    domain="www.tessera-db.example",
    tagline="The relational database for small teams",
    nav=("Download", "Documentation", "Release notes", "Community", "Support"),
)

RELEASE_NOTES = (
    "Upgrading. Patch releases are drop-in replacements within a minor series: stop the server, "
    "replace the binaries and start it again. No data migration is needed and the on-disk format "
    "is unchanged. Replicas may run another patch release of the same series than the primary "
    "during a rolling upgrade, but finish the upgrade within a day, and always take a backup "
    "before upgrading a production cluster.",
    "Known issues. On filesystems mounted without noatime the background compactor may use more "
    "I/O than expected. Queries that combine a full-text match with an ORDER BY on a computed "
    "column can ignore their LIMIT when the planner chooses a parallel plan; set the parallel "
    "workers per query to zero for such queries. Backups taken while a schema change runs may "
    "fail with a lock timeout: retry them once the change is done.",
    "Compatibility. This release is wire-compatible with every client of the 2.x series. Drivers "
    "older than 2.1 do not support the authentication method that is the default for new "
    "installations: upgrade the drivers first, or keep the older method until they are "
    "upgraded. Packages are published for Debian, Ubuntu, RHEL and Alpine, as container images "
    "and as tarballs, each with its checksum and signature.",
)

#: (version, release date, its changes)
RELEASES = (
    ("2.3.0", "14 January 2025", ("Added logical replication of sequences.",
                                  "Added a view of I/O statistics per table.")),
    ("2.3.1", "3 February 2025", ("Fixed a memory leak in the planner with prepared "
                                  "statements.",)),
    ("2.3.2", "20 February 2025", ("Fixed wrong results for a left join with a lateral "
                                   "subquery.",)),
    ("2.3.3", "11 March 2025", ("Fixed replicas falling behind after a network partition.",)),
    ("2.3.4", "2 April 2025", ("Fixed the dump tool failing on tables of over 1,600 columns.",)),
    ("2.3.5", "29 April 2025", ("Fixed a crash when a trigger dropped its own table.",)),
    ("2.3.10", "30 September 2025", ("Fixed a deadlock between vacuum and index creation.",)),
    ("2.3.11", "21 October 2025", ("Fixed a regression that made index creation slower.",)),
    ("2.3.12", "18 November 2025", ("Fixed the web console's replication lag for new "
                                    "replicas.",)),
    ("2.3.13", "9 December 2025", ("Fixed a privilege escalation through extension "
                                   "scripts.",)),
)


def release_notes() -> list[Page]:
    """One page per patch release: its date and one or two changes above the same upgrade notes,
    known issues and compatibility; the version ("2.3.1", "2.3.11") is the title."""
    pages = []
    menu = links([(version, f"/releases/{version}.html") for version, _, _ in RELEASES],
                 "release-menu")
    notes = "".join(f"<p>{esc(note)}</p>" for note in RELEASE_NOTES)
    for version, date, changes in RELEASES:
        items = "".join(f"<li>{esc(change)}</li>" for change in changes)
        main = (
            f'<article class="release"><h1>Tessera {version} release notes</h1>'
            f"<p>Tessera {version} was released on {date}. It is a patch release of the 2.3 "
            f"series and fixes the issues below; users of 2.3 should upgrade.</p>"
            f"<h2>Changes</h2><ul>{items}</ul>{notes}</article>"
        )
        pages.append((
            f"https://{DATABASE.domain}/releases/{version}.html",
            render(DATABASE, title=f"Tessera {version} release notes", main=main, sidebar=menu,
                   breadcrumbs=[("Release notes", "/releases/")]),
        ))
    return pages
