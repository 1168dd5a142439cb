"""Document and media file libraries: PDF (PyMuPDF), EPUB (EbookLib) and MIDI (mido) files opened, parsed and written.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`).
Opening reads and parses the file in the calling thread; page text extraction and rendering are CPU work.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

C, F = "blocking_cpu", "blocking_file_io"

PYMUPDF = ("https://pymupdf.readthedocs.io/en/latest/document.html (open/Document read and parse the file or "
           "stream; Page.get_text and get_pixmap extract and render in the calling thread; save writes)")
EBOOKLIB = ("https://docs.sourcefabric.org/projects/ebooklib/en/latest/tutorial.html#reading-epub (read_epub opens "
            "the EPUB zip and parses every item; write_epub writes the whole book)")
MIDO = ("https://mido.readthedocs.io/en/stable/files/midi.html (MidiFile(filename or file=) reads and parses the "
        "whole file; save writes it)")

_PDF_PACKAGES = ("fitz", "pymupdf")
_DOCUMENTS = tuple(f"{p}.Document" for p in _PDF_PACKAGES)
_PAGES = tuple(f"{p}.Page" for p in _PDF_PACKAGES)

DOCUMENTS = Vocabulary(
    calls={
        **{f"{p}.{f}": (F, PYMUPDF) for p in _PDF_PACKAGES for f in ("open", "Document")},
        **{f"mido.{c}": (F, MIDO) for c in ("MidiFile", "midifiles.MidiFile", "midifiles.midifiles.MidiFile")},
        **{f"ebooklib.epub.{f}": (F, EBOOKLIB) for f in ("read_epub", "write_epub")},
    },
    families=(
        Family(_DOCUMENTS, {"save": F, "ez_save": F, "tobytes": C, "write": C, "get_page_text": C,
                            "get_page_pixmap": C, "convert_to_pdf": C, "insert_pdf": C}, PYMUPDF),
        Family(_PAGES, {m: C for m in ("get_text", "get_textpage", "get_pixmap", "search_for", "get_text_words",
                                       "get_text_blocks", "find_tables")}, PYMUPDF),
        Family(("mido.MidiFile",), {"save": F}, MIDO),
    ),
    returns={
        **{f"{p}.{f}": f"{p}.Document" for p in _PDF_PACKAGES for f in ("open", "Document")},
        **{f"{d}.{m}": d.replace("Document", "Page") for d in _DOCUMENTS for m in ("load_page", "__getitem__",
                                                                                   "new_page", "__iter__")},
        **{f"mido.{c}": "mido.MidiFile" for c in ("MidiFile", "midifiles.MidiFile", "midifiles.midifiles.MidiFile")},
    },
)
