"""Writes a folder of hostile input files (generated, deterministic; nothing third-party).

    write_hostile(root, big=True) -> list[HostileFile]

Each entry says what it is meant to exercise. ``big=False`` leaves out the files that are large
to write or to read (50 MB single lines, the 100k-line source file, the pixel bomb), so the fast
suite and the whole-folder ingest stay quick; the ``slow`` tests ask for them.
Symlinks are created only where the OS allows them.
"""

from __future__ import annotations

import io
import os
import random
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

MB = 1024 * 1024


@dataclass(frozen=True)
class HostileFile:
    rel_path: str  # POSIX path under the root (may contain spaces, unicode, a newline)
    what: str  # the hostile property, for messages
    big: bool = False


# ---- PDFs written by hand or with reportlab ---------------------------------------------------


def valid_pdf(pages: int = 3) -> bytes:
    """A small text PDF with a bordered table, made with reportlab (a dev dependency)."""
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen import canvas

    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=letter)
    for page in range(1, pages + 1):
        pdf.setFont("Helvetica-Bold", 16)
        pdf.drawString(72, 720, f"Section {page}: hostile input handling")
        pdf.setFont("Helvetica", 11)
        for line in range(12):
            pdf.drawString(
                72, 690 - 14 * line, f"Line {line} of page {page}: the parser must not crash on this file."
            )
        for row in range(4):
            for col in range(3):
                x, y = 72 + 120 * col, 400 - 20 * row
                pdf.rect(x, y, 120, 20)
                pdf.drawString(x + 4, y + 6, f"r{row}c{col}")
        pdf.showPage()
    pdf.save()
    return buffer.getvalue()


def encrypted_pdf() -> bytes:
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen import canvas

    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=letter, encrypt="secret")
    pdf.drawString(72, 720, "You should not be able to read this without the password.")
    pdf.showPage()
    pdf.save()
    return buffer.getvalue()


def raw_pdf(objects: list[bytes], root: int = 1) -> bytes:
    """A PDF from numbered object bodies (object i+1 = objects[i]) with a correct xref table."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, root, xref)
    return bytes(out)


def _stream(dictionary: bytes, data: bytes) -> bytes:
    return b"<< " + dictionary + b" /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"


def image_pdf(width: int, height: int, data: bytes, media: tuple[int, int] = (612, 792)) -> bytes:
    """One page, no text, one grey image XObject (FlateDecode ``data``) drawn over the page."""
    image = _stream(
        b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
        b"/BitsPerComponent 8 /Filter /FlateDecode" % (width, height),
        data,
    )
    content = _stream(b"", b"q %d 0 0 %d 0 0 cm /Im1 Do Q" % media)
    return raw_pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Resources << /XObject << /Im1 4 0 R >> >> "
            b"/Contents 5 0 R >>" % media,
            image,
            content,
        ]
    )


def zeros_deflated(size: int) -> bytes:
    """``size`` zero bytes, deflated (about 1000:1), without holding them in memory."""
    compressor = zlib.compressobj(9)
    block = bytes(MB)
    parts = [compressor.compress(block) for _ in range(size // MB)]
    parts.append(compressor.compress(bytes(size % MB)))
    parts.append(compressor.flush())
    return b"".join(parts)


def pixel_bomb_pdf(side: int = 20_000) -> bytes:
    """A ~400 KB PDF whose only image decodes to side*side grey pixels (400 M by default)."""
    return image_pdf(side, side, zeros_deflated(side * side))


def lying_image_pdf() -> bytes:
    """An image that claims 1,000,000 x 1,000,000 pixels and carries a few bytes."""
    return image_pdf(1_000_000, 1_000_000, zlib.compress(bytes(1024)))


def huge_page_pdf() -> bytes:
    """A 14,400 x 14,400 pt page (200 inches, the PDF maximum) with a small image: a 200 dpi render
    would be 40,000 x 40,000 pixels."""
    return image_pdf(64, 64, zlib.compress(bytes(range(64)) * 64), media=(14_400, 14_400))


def self_referencing_form_pdf() -> bytes:
    """A form XObject that draws itself: naive content-stream interpreters recurse forever."""
    form = _stream(
        b"/Type /XObject /Subtype /Form /BBox [0 0 100 100] /Resources << /XObject << /F1 4 0 R >> >>",
        b"/F1 Do",
    )
    content = _stream(b"", b"/F1 Do")
    return raw_pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /F1 4 0 R >> >> "
            b"/Contents 5 0 R >>",
            form,
            content,
        ]
    )


def page_tree_cycle_pdf() -> bytes:
    """A Pages node that lists itself among its kids."""
    return raw_pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
        ]
    )


def png_bytes() -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (32, 32), (200, 30, 30)).save(buffer, format="PNG")
    return buffer.getvalue()


def zip_bytes() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("word/document.xml", "<w:document>not a pdf</w:document>")
    return buffer.getvalue()


# ---- text-like files --------------------------------------------------------------------------


def single_line(size: int) -> bytes:
    """``size`` bytes of words and no newline."""
    unit = b"lorem ipsum dolor sit amet "
    return (unit * (size // len(unit) + 1))[:size]


def nested_list_indented(depth: int) -> bytes:
    return "".join("  " * i + f"- level {i}\n" for i in range(depth)).encode()


def long_python(lines: int) -> bytes:
    """A generated-looking module: ``lines`` lines of small functions and a big literal."""
    out = ['"""Generated module."""', "", "TABLE = ["]
    out += [f"    ({i}, 'row {i}')," for i in range(lines // 2)]
    out.append("]")
    while len(out) < lines - 1:
        n = len(out)
        out += [f"def f{n}(x):", f"    return x + {n}"]
    return ("\n".join(out[:lines]) + "\n").encode()


def files(rng: random.Random, big: bool) -> dict[str, tuple[bytes, str]]:
    """rel_path -> (content, what)."""
    pdf = valid_pdf()
    out: dict[str, tuple[bytes, str]] = {"pdf/valid.pdf": (pdf, "a valid control PDF")}
    for cut in (8, 100, len(pdf) // 4, len(pdf) // 2, len(pdf) * 3 // 4, len(pdf) - 40, len(pdf) - 1):
        out[f"pdf/truncated-at-{cut}.pdf"] = (pdf[:cut], f"valid PDF cut at byte {cut} of {len(pdf)}")
    out["pdf/encrypted.pdf"] = (encrypted_pdf(), "encrypted PDF (user password)")
    out["pdf/lying-image-dimensions.pdf"] = (lying_image_pdf(), "image claims 10^12 pixels")
    out["pdf/self-referencing-form.pdf"] = (self_referencing_form_pdf(), "form XObject drawing itself")
    out["pdf/page-tree-cycle.pdf"] = (page_tree_cycle_pdf(), "page tree that contains itself")
    out["pdf/actually-a-png.pdf"] = (png_bytes(), "PNG named .pdf")
    out["pdf/actually-a-zip.pdf"] = (zip_bytes(), "zip (docx-like) named .pdf")
    out["pdf/header-then-garbage.pdf"] = (
        b"%PDF-1.7\n" + rng.randbytes(32 * 1024),
        "%PDF header then random bytes",
    )
    for suffix in ("pdf", "md", "py", "jsonl", "txt"):
        out[f"random/random-bytes.{suffix}"] = (rng.randbytes(64 * 1024), "64 KiB of random bytes")
        out[f"empty/empty.{suffix}"] = (b"", "empty file")
    out["empty/whitespace-only.md"] = (b" \n\t\n\r\n", "whitespace only")
    out["text/invalid-utf8.md"] = (
        b"# Caf\xe9 \xff\xfe\n\nBroken \xc3\x28 bytes \xa0 here.\n",
        "invalid UTF-8",
    )
    out["text/invalid-utf8.py"] = (
        b"def caf\xe9():\n    return '\xff\xfe\xc3\x28'\n",
        "invalid UTF-8 in code",
    )
    out["text/utf16.md"] = ("# UTF-16 heading\n\nText.\n".encode("utf-16"), "UTF-16 with BOM (NUL bytes)")
    out["text/nul-in-text.txt"] = (b"hello\x00world\n", "NUL byte in a text file")
    out["text/cr-only-line-endings.md"] = (
        b"# Old Mac\r\rParagraph one.\r\rParagraph two.\r",
        "CR-only newlines",
    )
    out["markdown/nested-list-10k-one-line.md"] = (
        b"- " * 10_000 + b"deep\n",
        "10k nested list markers on one line",
    )
    out["markdown/nested-list-2k-indented.md"] = (
        nested_list_indented(2_000),
        "2k-level indented list (4 MB)",
    )
    out["markdown/nested-quote-10k.md"] = (b"> " * 10_000 + b"deep\n", "10k nested block quotes")
    out["markdown/nested-emphasis-5k.md"] = (b"*" * 5_000 + b"a" + b"*" * 5_000 + b"\n", "5k nested emphasis")
    out["markdown/nested-links-10k.md"] = (
        b"[" * 10_000 + b"a" + b"](b)" * 10_000 + b"\n",
        "10k nested links",
    )
    laughs = "---\na: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    for level, name in enumerate("bcdefghij"):
        prev = "abcdefghij"[level]
        laughs += f"{name}: &{name} [{', '.join(['*' + prev] * 10)}]\n"
    out["markdown/yaml-billion-laughs.md"] = (
        (laughs + "---\n# Body\n\ntext\n").encode(),
        "YAML alias bomb in front matter",
    )
    deep_yaml = "---\nx: " + "[" * 5_000 + "]" * 5_000 + "\n---\n# Body\n\ntext\n"
    out["markdown/yaml-deep-nesting.md"] = (deep_yaml.encode(), "5k nested YAML lists in front matter")
    out["code/deep-parens.py"] = (b"x = " + b"(" * 5_000 + b")" * 5_000 + b"\n", "5k nested parentheses")
    out["code/deep-functions.js"] = (
        b"function f(){" * 3_000 + b"return 1;" + b"}" * 3_000 + b"\n",
        "3k nested function definitions",
    )
    deep_py = "".join("    " * i + f"def f{i}():\n" for i in range(500)) + "    " * 500 + "return 1\n"
    out["code/deep-defs.py"] = (deep_py.encode(), "500 nested Python defs (near the interpreter's own limit)")
    out["code/deep-namespaces.cpp"] = (
        b"namespace a {" * 5_000 + b"int f() { return 1; }" + b"}" * 5_000 + b"\n",
        "5k nested C++ namespaces",
    )
    out["code/deep-ifdef.c"] = (b"#ifdef A\n" * 3_000 + b"int x;\n" + b"#endif\n" * 3_000, "3k nested #ifdef")
    out["code/minified.js"] = (b"var a=1;" * 300_000, "2.4 MB single-line minified JS")
    out["records/deep-json.jsonl"] = (
        b'{"_id": "ok", "text": "a good record"}\n' + b"[" * 100_000 + b"]" * 100_000 + b"\n",
        "100k nested JSON arrays on one line next to a good record",
    )
    out["records/bad-lines.jsonl"] = (
        b'{"_id": 1, "text": "good"}\nnot json\n{"_id": 1, "text": "dup"}\n[]\n',
        "bad lines",
    )
    # names
    out["names/with space.md"] = (b"# Spaces\n\nA file name with spaces.\n", "space in the name")
    out["names/ünïcødé 文档.md"] = ("# Unicode\n\n名前に Unicode.\n".encode(), "unicode name")
    out["names/new\nline.md"] = (b"# Newline\n\nA newline in the file name.\n", "newline in the name")
    out["names/tab\tand-dash -rf.py"] = (b"def tab():\n    return 1\n", "tab and a leading-dash word")
    out["names/" + "long" * 60 + ".md"] = (b"# Long\n\nA 243-byte file name.\n", "long name")
    if big:
        out["big/single-line-50mb.md"] = (single_line(50 * MB), "50 MB single line (Markdown)")
        out["big/single-line-50mb.txt"] = (single_line(50 * MB), "50 MB single line (text)")
        out["big/100k-lines.py"] = (long_python(100_000), "100,000-line Python file")
        out["big/pixel-bomb.pdf"] = (pixel_bomb_pdf(), "400 MP image deflated to ~400 KB")
        out["big/huge-page.pdf"] = (huge_page_pdf(), "200 x 200 inch page, no text (OCR render size)")
    return out


def write_hostile(root: Path, big: bool = True, seed: int = 8) -> list[HostileFile]:
    """Write the hostile set under ``root`` and return what was written (symlinks included)."""
    rng = random.Random(seed)
    written: list[HostileFile] = []
    for rel, (data, what) in files(rng, big).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        written.append(HostileFile(rel, what, rel.startswith("big/")))
    written.extend(_symlinks(root))
    return written


def _symlinks(root: Path) -> list[HostileFile]:
    """A loop (a -> b -> a), a self-loop directory, and links leaving the root (file and folder).

    Returned entries are the links themselves; none of them should be indexed."""
    links = root / "links"
    links.mkdir(parents=True, exist_ok=True)
    outside = root.parent / f"{root.name}-outside"
    outside.mkdir(exist_ok=True)
    (outside / "secret.md").write_text(
        "# Outside\n\nThis file is outside the source root.\n", encoding="utf-8"
    )
    made: list[HostileFile] = []
    try:
        os.symlink("loop-b.md", links / "loop-a.md")
        os.symlink("loop-a.md", links / "loop-b.md")
        os.symlink(".", links / "self-dir", target_is_directory=True)
        os.symlink(outside / "secret.md", links / "escape.md")
        os.symlink(outside, links / "escape-dir", target_is_directory=True)
        os.symlink("../names/with space.md", links / "inside.md")  # stays inside: may be indexed
    except (OSError, NotImplementedError):  # pragma: no cover - e.g. Windows without privilege
        return made
    made += [
        HostileFile("links/loop-a.md", "symlink loop"),
        HostileFile("links/loop-b.md", "symlink loop"),
        HostileFile("links/escape.md", "symlink leaving the root"),
        HostileFile("links/inside.md", "symlink inside the root"),
    ]
    return made


def outside_dir(root: Path) -> Path:
    """The folder the escaping symlinks point at."""
    return root.parent / f"{root.name}-outside"
