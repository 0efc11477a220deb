"""A QTI content package, a zip with `imsmanifest.xml`, read into a `ParsedBank`.

A package is checked before any member is read: its member count, their total uncompressed
size, and every member's name (no absolute path, no `..`, no symlink). Its tests give the order
of its items and their categories (section titles); a section may be a file of its own
(`assessmentSectionRef`), read where the test refers to it. Each item is read by qti.py.
"""

import contextlib
import functools
import gc
import io
import posixpath
import re
import stat
import zipfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from xml.etree.ElementTree import Element

from questions.bank.checks import MAX_NESTING, TOO_DEEP
from questions.bank.formats.foreign import ForeignCaseStudy, ParsedBank, ParseError, to_markdown
from questions.bank.formats.qti import FORMAT, QtiError, add_result, parse_xml, read_item
from questions.bank.formats.qti_html import ImageLoader, ItemHtml
from questions.bank.formats.qti_names import name_of
from questions.media.images import Image, MediaError, check_image, max_bytes

ZIP_MAGIC = b"PK\x03\x04"
# A 10,000-question package is about 10,000 files and 20 MB unpacked; these leave room for
# images while refusing a zip bomb before it is inflated.
MAX_PACKAGE_FILES = 20_000
MAX_PACKAGE_BYTES = 256 * 1024 * 1024

_XML_BASE = "{http://www.w3.org/XML/1998/namespace}base"


def read_package(raw: bytes) -> ParsedBank:
    """A content package: the items of its tests in their order, each section's title a
    category; items the manifest lists outside any test after them."""
    bank = ParsedBank(FORMAT)
    try:
        archive = open_package(raw)
        with _without_cycle_collection():
            _read_package(archive, bank)
    except QtiError as error:
        bank.errors.append(ParseError(0, str(error)))
    return bank


@contextlib.contextmanager
def _without_cycle_collection() -> Iterator[None]:
    """Reading a package makes a few hundred thousand elements and strings, none of them in
    a reference cycle: the cycle collector would walk the process's whole heap again and
    again for nothing (a third of the reading time in a process that holds a large bank).
    It is paused while the package is read, and resumed by whoever paused it first."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def open_package(raw: bytes) -> zipfile.ZipFile:
    """The zip, once its member names, count and sizes are found safe to read."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
    except zipfile.BadZipFile as error:
        raise QtiError(f"not a readable zip archive ({error})") from None
    members = archive.infolist()
    if len(members) > MAX_PACKAGE_FILES:
        raise QtiError(
            f"refused: the package has {len(members)} files; packages are read up to "
            f"{MAX_PACKAGE_FILES}"
        )
    total = sum(member.file_size for member in members)
    if total > MAX_PACKAGE_BYTES:
        raise QtiError(
            f"refused: the package unpacks to {total / 1e6:.0f} MB; packages are read up to "
            f"{MAX_PACKAGE_BYTES // (1024 * 1024)} MB unpacked"
        )
    for member in members:
        name = member.filename
        if name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name):
            raise QtiError(f"refused: the package holds an absolute path ({name})")
        if ".." in re.split(r"[\\/]", name):
            raise QtiError(f"refused: the package holds a path out of it ({name})")
        if stat.S_ISLNK(member.external_attr >> 16):
            raise QtiError(f"refused: the package holds a symbolic link ({name})")
    return archive


def _member(archive: zipfile.ZipFile, path: str) -> bytes:
    try:
        info = archive.getinfo(path)
    except KeyError:
        raise QtiError(f"{path}: listed but not in the package") from None
    try:
        with archive.open(info) as stream:
            # The header's size was checked; a member that inflates past it is refused.
            data = stream.read(info.file_size + 1)
    except (zipfile.BadZipFile, OSError, EOFError) as error:
        raise QtiError(f"{path}: cannot be unpacked ({error})") from None
    if len(data) > info.file_size:
        raise QtiError(f"{path}: unpacks to more than its header says: refused")
    return data


def _resolve(base: str, href: str, where: str) -> str:
    path = posixpath.normpath(posixpath.join(posixpath.dirname(base), href.split("#")[0]))
    if href.startswith("/") or re.match(r"^[a-z][a-z0-9+.-]*:", href) or path.startswith(".."):
        raise QtiError(f"{where}: {href!r} is not a file in the package")
    return path


@dataclass
class _Ref:
    path: str
    category: tuple[str, ...] = ()


def _read_package(archive: zipfile.ZipFile, bank: ParsedBank) -> None:
    if "imsmanifest.xml" not in archive.namelist():
        raise QtiError("not a QTI content package: no imsmanifest.xml at its top")
    manifest = parse_xml(_member(archive, "imsmanifest.xml"), "imsmanifest.xml")
    tests: list[str] = []
    items: list[str] = []
    for element in manifest.iter():
        if name_of(element) != "resource":
            continue
        kind = element.get("type", "")
        href = element.get("href", "")
        if not href or not kind.startswith("imsqti_"):
            continue
        path = _resolve("imsmanifest.xml", element.get(_XML_BASE, "") + href, "imsmanifest.xml")
        if "_test_" in kind:
            tests.append(path)
        elif "_item_" in kind:
            items.append(path)
    refs: dict[str, _Ref] = {}
    files_read: set[str] = set()
    for test_path in tests:
        test = parse_xml(_member(archive, test_path), test_path)
        _walk_test(test, test_path, (), refs, archive, files_read)
    for path in items:
        refs.setdefault(path, _Ref(path))
    if not refs:
        raise QtiError("imsmanifest.xml lists no QTI items or tests")
    parsed: list[tuple[int, _Ref, Element]] = []
    for number, ref in enumerate(refs.values(), start=1):
        try:
            parsed.append((number, ref, parse_xml(_member(archive, ref.path), ref.path)))
        except QtiError as error:
            bank.errors.append(ParseError(number, str(error)))
    identifiers = Counter(root.get("identifier", "") for _, _, root in parsed)
    for identifier, count in identifiers.items():
        if count > 1:
            bank.notes.append(
                f"item identifier {identifier!r} is used by {count} items: each is known by "
                "its identifier and file"
            )
    stimuli: dict[str, ForeignCaseStudy] = {}
    for number, ref, root in parsed:
        if name_of(root) != "assessmentItem":
            bank.errors.append(ParseError(number, f"{ref.path}: not a QTI item"))
            continue
        identifier = root.get("identifier", "")
        name = f"{identifier} {ref.path}" if identifiers[identifier] > 1 else identifier
        load = _image_loader(archive, ref.path)
        read = functools.partial(_read_stimulus, archive, ref.path, bank, stimuli)
        add_result(
            bank,
            read_item(
                root,
                ref.path,
                number,
                name=name,
                category=ref.category,
                bank=bank,
                load=load,
                stimulus=read,
            ),
        )


def _read_stimulus(
    archive: zipfile.ZipFile,
    item_path: str,
    bank: ParsedBank,
    read: dict[str, ForeignCaseStudy],
    href: str,
) -> ForeignCaseStudy:
    """A shared stimulus as a case study, read once per file however many items share it."""
    path = _resolve(item_path, href, item_path)
    if path not in read:
        root = parse_xml(_member(archive, path), path)
        if name_of(root) != "assessmentStimulus":
            raise QtiError(f"{path} is no assessment stimulus")
        body = next((child for child in root if name_of(child) == "stimulusBody"), None)
        out = ItemHtml(bank, _image_loader(archive, path))
        scenario = to_markdown(out.inner(body), "html") if body is not None else ""
        title = " ".join((root.get("title") or root.get("identifier") or "").split())
        read[path] = ForeignCaseStudy(f"stimulus:{path}", title or "Scenario", scenario)
    return read[path]


def _image_loader(archive: zipfile.ZipFile, item_path: str) -> ImageLoader:
    def load(source: str) -> Image:
        try:
            path = _resolve(item_path, source, item_path)
            info = archive.getinfo(path)
        except (QtiError, KeyError):
            raise MediaError(f"{source}: not a file in the package") from None
        if info.file_size > max_bytes():
            raise MediaError(
                f"{source}: the file is {info.file_size / 1e6:.1f} MB; images are accepted up "
                f"to {max_bytes() / 1e6:.1f} MB"
            )
        try:
            data = _member(archive, path)
        except QtiError as error:
            raise MediaError(str(error)) from None
        return check_image(data, source)

    return load


def _walk_test(
    element: Element,
    test_path: str,
    sections: tuple[str, ...],
    refs: dict[str, _Ref],
    archive: zipfile.ZipFile,
    files_read: set[str],
) -> None:
    """The item refs under a test (or a section), in order, with their section titles. A
    section kept in a file of its own (`assessmentSectionRef`) is read there, its item refs
    relative to it; each section file once (a file referred to again, or by itself, adds
    nothing new)."""
    # Each file is within the limit, but a chain of section files adds up.
    if len(sections) > MAX_NESTING:
        raise QtiError(f"{test_path}: its sections are {TOO_DEEP}")
    for child in element:
        kind = name_of(child)
        if kind == "assessmentSection":
            title = " ".join(child.get("title", "").split()) or child.get("identifier", "")
            _walk_test(child, test_path, (*sections, title), refs, archive, files_read)
        elif kind == "assessmentSectionRef":
            path = _resolve(test_path, child.get("href", ""), test_path)
            if path in files_read:
                continue
            files_read.add(path)
            try:
                archive.getinfo(path)
            except KeyError:
                raise QtiError(f"{test_path}: its section {path} is not in the package") from None
            section = parse_xml(_member(archive, path), path)
            if name_of(section) != "assessmentSection":
                raise QtiError(f"{path}: not a QTI assessment section ({test_path} refers to it)")
            title = (
                " ".join(section.get("title", "").split())
                or section.get("identifier", "")
                or child.get("identifier", "")
            )
            _walk_test(section, path, (*sections, title), refs, archive, files_read)
        elif kind == "assessmentItemRef":
            path = _resolve(test_path, child.get("href", ""), test_path)
            refs.setdefault(path, _Ref(path, sections))
        elif kind == "testPart":
            _walk_test(child, test_path, sections, refs, archive, files_read)
