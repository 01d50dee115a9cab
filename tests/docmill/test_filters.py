import pytest

from chunkers.model import Chunk
from docmill.filters import mask


def _chunk(i, path, kind="text", language=None, pages=None, metadata=None):
    return Chunk(
        id=str(i),
        doc_id=path,
        path=path,
        kind=kind,
        text="t",
        index_text="t",
        pages=pages,
        language=language,
        metadata=metadata or {},
    )


CHUNKS = [
    _chunk(0, "docs/a.md"),
    _chunk(1, "docs/sub/b.md", kind="table"),
    _chunk(2, "src/x.py", kind="code", language="python"),
    _chunk(3, "manual.pdf", pages=(3, 4), metadata={"lang": "en"}),
]


@pytest.mark.parametrize(
    ("filters", "rows"),
    [
        ({"path": "docs/*"}, [0, 1]),  # fnmatch: * crosses folders
        ({"path": ["*.py", "*.pdf"]}, [2, 3]),
        ({"kind": "table"}, [1]),
        ({"language": "python"}, [2]),
        ({"pages": (4, 9)}, [3]),
        ({"pages": (5, 9)}, []),
        ({"metadata": {"lang": "en"}}, [3]),
        ({"kind": ["text", "code"], "path": "src/*"}, [2]),
    ],
)
def test_mask_selects_matching_rows(filters, rows):
    assert list(mask(CHUNKS, filters).nonzero()[0]) == rows


def test_no_filters_means_no_mask():
    assert mask(CHUNKS, None) is None
    assert mask(CHUNKS, {}) is None


def test_unknown_filter_names_the_valid_ones():
    with pytest.raises(ValueError, match="unknown filter.*expected any of: path, kind"):
        mask(CHUNKS, {"colour": "red"})


@pytest.mark.parametrize("kind", ["image", ["table", "image"]])
def test_an_unknown_kind_is_an_error_not_an_empty_mask(kind):
    expected = "unknown kind 'image' in filter 'kind'; expected any of: text, table, code"
    with pytest.raises(ValueError, match=expected):
        mask(CHUNKS, {"kind": kind})
