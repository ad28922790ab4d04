"""The Scrapy wing: everything that runs inside a crawl.

- :mod:`.addon`: one line in ``ADDONS`` turns the components on, with the defaults;
- :mod:`.settings`: the ``SIMHASH_*`` settings read and checked, and the detector they describe;
- :mod:`.downloader`, :mod:`.spider`, :mod:`.pipeline`: the Scrapy components, on
  :mod:`.component`'s shared start-up and on :mod:`.dedup`'s keep/drop decision;
- :mod:`.signing`: a page's signature as the crawl takes it (inline or in a worker), and
  :func:`~.signing.is_near_duplicate`;
- :mod:`.report`: the per-crawl record of decisions; :mod:`.workers`: the worker processes.

The text side (``text/``, ``extract/``, the detectors) and the index never import this package.
"""
