"""A build: its files, manifest, segments, row map, graph file; written and opened here."""
