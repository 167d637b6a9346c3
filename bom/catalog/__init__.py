"""The catalog: part rows with their sources, loading, checks, prices, the standard lookup.

Public surface: :func:`bom.catalog.load.load_catalog`; the row types and :class:`Catalog`
(:mod:`bom.catalog.rows`); :func:`bom.catalog.media.media_for` and :class:`~bom.catalog.media.Media`
(rate + length -> parts); :mod:`bom.catalog.prices` (price files); :mod:`bom.catalog.checks` (the
strict check of every fact's source).
"""
