"""Read a bundle: every document of a folder address or a named collection in one text, each with its heading, within the output cap.

The text is the sections of `guide.docroot.bundles.section` in the bundle's
order, one blank line apart. It counts against the same output cap as a render
(`guide.render.MAX_OUTPUT`, the `max_output` setting): past it, nothing is sent
and the read fails in one line saying how many of its documents fit. Documents
are read one after the other and the reading stops at the first that does not fit.
"""

from guide.docroot.bundles import section, title
from guide.docroot.folder import Docroot
from guide.render import MAX_OUTPUT, RenderTooLarge
from guide.routes.finish import document_text
from guide.routes.lookup import Bundle, served_document


def bundle_text(docroot: Docroot, bundle: Bundle, *, max_output: int = MAX_OUTPUT) -> str:
    """Every document of `bundle` in order; past `max_output`, `RenderTooLarge`."""
    sections, size = [], 0
    for count, path in enumerate(bundle.paths):
        document = served_document(bundle.built, path)  # refused, as a read of it alone would be, when its frontmatter has an error
        text = section(path, document.path, title(bundle.built, document.path), document_text(docroot, document))
        size += len(text) + (1 if sections else 0)
        if size > max_output:
            raise RenderTooLarge(
                f"{bundle.uri} holds {len(bundle.paths)} documents, more than one read returns: the first {count} fit in the output cap of"
                f" {max_output:,} characters and the next would make {size:,}; read fewer at once (a smaller collection, a folder below it,"
                " or its documents one by one)"
            )
        sections.append(text)
    return "\n".join(sections)
