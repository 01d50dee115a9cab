"""The docmill version a build records (``manifest.docmill_version``). A build written by another
version re-parses everything: another docmill may parse the same bytes differently. Defined here,
at the bottom of the layers, so the ingest side never imports the query package for it;
``docmill.__version__`` is this value."""

DOCMILL_VERSION = "0.1.0"
