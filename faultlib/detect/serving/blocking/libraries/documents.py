"""Document and media file libraries: PDF (PyMuPDF, pypdf, pdfplumber, pdf2image), office files (python-pptx,
python-docx's and openpyxl's writers, xlrd, odfpy, olefile, Aspose.Words), EPUB (EbookLib) and MIDI (mido) files opened, parsed
and written; pypandoc's conversions (they run the ``pandoc`` binary and wait for it) and its installer check (held-out
wave 65: ``ensure_pandoc_installed`` in a cached helper, run by the first conversion a handler asks for); docling's document conversion (layout and OCR models run over every page).
HTML to PDF: pdfkit's conversions run the ``wkhtmltopdf`` binary and wait for it (held-out wave 82: an invoice API's
``pdfkit.from_string(html, False)`` in its async route); WeasyPrint lays the document out and draws it in the calling
thread.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; python-docx's
``Document`` and openpyxl's ``load_workbook`` are in :mod:`faultlib.detect.serving.blocking.sdks`). Opening reads and
parses the file (or the whole in-memory stream) in the calling thread; page text extraction and rendering are CPU
work; pdf2image runs poppler's ``pdftoppm``/``pdfinfo`` and waits for them. Aspose.Words' ``Document(path)`` loads and
parses a Word file (``Document()`` makes an empty one), ``compare`` diffs two whole documents, ``save`` writes (held-out
wave 53: a school-schedule bot compares the downloaded timetable with the last one in its async polling task).
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import ANY_ARGUMENT, BlocksWhen, Family, Vocabulary

C, F = "blocking_cpu", "blocking_file_io"

PYMUPDF = ("https://pymupdf.readthedocs.io/en/latest/document.html (open/Document read and parse the file or "
           "stream -- without a file name or stream they create a new empty PDF in memory; Page.get_text and "
           "get_pixmap extract and render in the calling thread; Document.extract_image decodes an embedded image's "
           "stream into its bytes; save writes)")
EBOOKLIB = ("https://docs.sourcefabric.org/projects/ebooklib/en/latest/tutorial.html#reading-epub (read_epub opens "
            "the EPUB zip and parses every item; write_epub writes the whole book)")
MIDO = ("https://mido.readthedocs.io/en/stable/files/midi.html (MidiFile(filename or file=) reads and parses the "
        "whole file -- MidiFile() makes a new empty one; save writes it)")

PDF2IMAGE = ("https://pdf2image.readthedocs.io/en/latest/reference.html (convert_from_path/convert_from_bytes run "
             "poppler's pdftoppm and decode its images; pdfinfo_from_path/bytes run pdfinfo; all wait for the process)")
PYPDF = ("https://pypdf.readthedocs.io/en/stable/modules/PdfReader.html (PdfReader(stream) reads the file or stream "
         "and parses its cross-reference table); https://pypdf.readthedocs.io/en/stable/modules/PdfWriter.html (write)")
PYPANDOC = ("https://github.com/JessicaTegner/pypandoc#usage (convert_text and convert_file run the pandoc binary as a "
            "child process and wait for its output; get_pandoc_version/formats run it too)")
PYPANDOC_INSTALL = ("https://github.com/JessicaTegner/pypandoc#installing-pandoc-via-pypandoc (ensure_pandoc_installed "
                    "runs the pandoc it finds to read its version and, when there is none, download_pandoc fetches "
                    "the installer from GitHub's releases and unpacks it; get_pandoc_path probes the candidates the "
                    "same way)")
PDFPLUMBER = "https://github.com/jsvine/pdfplumber#python-library (pdfplumber.open opens and parses the PDF)"
PPTX = ("https://python-pptx.readthedocs.io/en/latest/api/presentation.html (Presentation(pptx) opens the file or "
        "stream and parses the package; save writes it)")
OFFICE_SAVE = ("https://python-docx.readthedocs.io/en/latest/api/document.html#docx.document.Document.save and "
               "https://openpyxl.readthedocs.io/en/stable/api/openpyxl.workbook.workbook.html#openpyxl.workbook."
               "workbook.Workbook.save (write the whole file)")
XLRD = "https://xlrd.readthedocs.io/en/latest/api.html#xlrd.open_workbook (reads and parses the whole workbook)"
ODFPY = "https://github.com/eea/odfpy/wiki (odf.opendocument.load opens the zip and parses its XML)"
OLEFILE = "https://olefile.readthedocs.io/en/latest/Howto.html (OleFileIO(filename) opens and parses the OLE file)"
DOCLING = ("https://docling-project.github.io/docling/reference/document_converter/ (DocumentConverter.convert and "
           "convert_all parse each document through its pipeline -- layout analysis, table structure and OCR models "
           "-- in the calling thread and return the result; the converter itself is built without that work)")
_DOCLING = "docling.document_converter.DocumentConverter"
ASPOSE_WORDS = ("https://reference.aspose.com/words/python-net/aspose.words/document/ (Document(file_name) \"Opens an "
                "existing document from a file\"; compare \"Compares this document with another document producing "
                "changes as number of edit and format revisions\"; save writes the document)")
_ASPOSE_DOCUMENT = "aspose.words.Document"
PDFKIT = ("https://github.com/JazzCore/python-pdfkit#usage (from_url/from_file/from_string build a PDFKit whose to_pdf "
          "starts wkhtmltopdf with subprocess.Popen and waits on communicate() for the whole conversion; with False as "
          "the output path the PDF comes back as bytes)")
_PDFKIT = ("pdfkit.PDFKit", "pdfkit.pdfkit.PDFKit")
WEASYPRINT = ("https://doc.courtbouillon.org/weasyprint/stable/api_reference.html#weasyprint.HTML.write_pdf (write_pdf "
              "renders -- lays out every page and draws it -- then writes the PDF; render does the layout alone)")
_WEASY_HTML = ("weasyprint.HTML", "weasyprint.document.HTML")

_ANY = BlocksWhen(ANY_ARGUMENT, test="given")  # no argument: a new empty document in memory
_PDF_PACKAGES = ("fitz", "pymupdf")
_DOCUMENTS = tuple(f"{p}.Document" for p in _PDF_PACKAGES)
_PAGES = tuple(f"{p}.Page" for p in _PDF_PACKAGES)

DOCUMENTS = Vocabulary(
    calls={
        **{f"{p}.{f}": (F, PYMUPDF) for p in _PDF_PACKAGES for f in ("open", "Document")},
        **{f"mido.{c}": (F, MIDO) for c in ("MidiFile", "midifiles.MidiFile", "midifiles.midifiles.MidiFile")},
        **{f"ebooklib.epub.{f}": (F, EBOOKLIB) for f in ("read_epub", "write_epub")},
        **{f"pdf2image.{f}": ("blocking_subprocess", PDF2IMAGE) for f in (
            "convert_from_path", "convert_from_bytes", "pdfinfo_from_path", "pdfinfo_from_bytes")},
        **{f"{p}.PdfReader": (F, PYPDF) for p in ("pypdf", "PyPDF2")}, "pdfplumber.open": (F, PDFPLUMBER),
        "pptx.Presentation": (F, PPTX), "xlrd.open_workbook": (F, XLRD), "odf.opendocument.load": (F, ODFPY),
        "olefile.OleFileIO": (F, OLEFILE), _ASPOSE_DOCUMENT: (F, ASPOSE_WORDS),
        **{f"pypandoc.{f}": ("blocking_subprocess", PYPANDOC) for f in (
            "convert_text", "convert_file", "convert", "get_pandoc_version", "get_pandoc_formats")},
        **{f"pypandoc.{f}": ("blocking_subprocess", PYPANDOC_INSTALL) for f in (
            "ensure_pandoc_installed", "get_pandoc_path")},
        "pypandoc.download_pandoc": ("blocking_http", PYPANDOC_INSTALL),
        **{f"pdfkit.{f}": ("blocking_subprocess", PDFKIT) for f in ("from_string", "from_url", "from_file")},
        "pypandoc.pandoc_download.download_pandoc": ("blocking_http", PYPANDOC_INSTALL),
    },
    families=(
        Family(_DOCUMENTS, {"save": F, "ez_save": F, "tobytes": C, "write": C, "get_page_text": C,
                            "get_page_pixmap": C, "convert_to_pdf": C, "insert_pdf": C, "extract_image": C}, PYMUPDF),
        Family(_PAGES, {m: C for m in ("get_text", "get_textpage", "get_pixmap", "search_for", "get_text_words",
                                       "get_text_blocks", "find_tables")}, PYMUPDF),
        Family(("mido.MidiFile",), {"save": F}, MIDO),
        Family((_DOCLING,), {"convert": C, "convert_all": C}, DOCLING),
        Family(("pypdf.PdfWriter", "PyPDF2.PdfWriter"), {"write": F}, PYPDF),
        Family(("pptx.presentation.Presentation",), {"save": F}, PPTX),
        Family(("docx.document.Document", "openpyxl.workbook.workbook.Workbook"), {"save": F}, OFFICE_SAVE),
        Family((_ASPOSE_DOCUMENT,), {"compare": C, "save": F}, ASPOSE_WORDS),
        Family(_PDFKIT, {"to_pdf": "blocking_subprocess"}, PDFKIT),
        Family(_WEASY_HTML, {"write_pdf": C, "render": C}, WEASYPRINT),
    ),
    when={**{f"{p}.{f}": _ANY for p in _PDF_PACKAGES for f in ("open", "Document")},
          **{f"mido.{c}": _ANY for c in ("MidiFile", "midifiles.MidiFile", "midifiles.midifiles.MidiFile")},
          _ASPOSE_DOCUMENT: _ANY},
    returns={
        **{f"{p}.{f}": f"{p}.Document" for p in _PDF_PACKAGES for f in ("open", "Document")},
        **{f"{d}.{m}": d.replace("Document", "Page") for d in _DOCUMENTS for m in ("load_page", "__getitem__",
                                                                                   "new_page", "__iter__")},
        **{f"mido.{c}": "mido.MidiFile" for c in ("MidiFile", "midifiles.MidiFile", "midifiles.midifiles.MidiFile")},
        _DOCLING: _DOCLING, _ASPOSE_DOCUMENT: _ASPOSE_DOCUMENT, **{c: _PDFKIT[0] for c in _PDFKIT},
        **{h: _WEASY_HTML[0] for h in _WEASY_HTML}, "pypdf.PdfWriter": "pypdf.PdfWriter", "PyPDF2.PdfWriter": "PyPDF2.PdfWriter",
        "pptx.Presentation": "pptx.presentation.Presentation", "docx.Document": "docx.document.Document",
        **{f"openpyxl.{f}": "openpyxl.workbook.workbook.Workbook" for f in ("Workbook", "load_workbook")},
    },
)
