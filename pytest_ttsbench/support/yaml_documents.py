"""Reading YAML documents (case files, the configuration, known gaps) with libyaml when it is there.

PyYAML's pure-Python loader is most of the time spent collecting a large benchmark; its C
loader (``CSafeLoader``, present whenever PyYAML was built against libyaml, as its wheels are)
parses the same safe subset to the same objects two to three times faster. PyYAML itself is
imported on the first read, so a pytest run that reads no YAML never pays for it.

Alias expansion is bounded. Anchors and aliases let a 500-byte file describe billions of nodes
(nine levels of nine aliases each): PyYAML builds it as shared references, cheaply, but anything
that walks it (schema validation, an error message quoting the value) expands it. So a document
is composed first, its fully expanded size is counted once per distinct node, and one beyond
:data:`MAX_EXPANDED_NODES` is refused before anything walks it.

Keys are unique. PyYAML keeps the last of two equal keys in a mapping, so a case item with two
``text:`` keys would send the second text, silently; the same walk refuses a mapping that gives a
key twice (equal as Python dict keys: ``1`` and ``0x1``, ``yes`` and ``true`` too) with
:class:`DuplicateYamlKeyError`, naming the key and both lines. A key a merge (``<<: *base``)
brings in may still be overridden: that is what merges are for.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_ttsbench.support.cache import ClipCache

#: the suffixes of the YAML files the project reads (case files, packs, the configuration)
YAML_SUFFIXES = (".yaml", ".yml")
#: the files a benchmark reads: case files (YAML) and external benchmark files (JSON lines)
BENCHMARK_FILE_SUFFIXES = (*YAML_SUFFIXES, ".jsonl")

# Bump when what a cached parse holds changes: old entries then simply miss.
# 3: entries sealed with a checksum (cache.py), and duplicate keys refused, so a parse cached by a
# loader that took the last one must miss.
_PARSE_VERSION = "3"


class YamlSyntaxError(ValueError):
    """The text is not valid YAML; the message is PyYAML's, ``line`` the 1-based line it names."""

    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.line = line


class DuplicateYamlKeyError(YamlSyntaxError):
    """A mapping gives one key twice; ``line`` is the second occurrence's, ``first_line`` the first's."""

    def __init__(self, key: Any, line: int, first_line: int) -> None:
        super().__init__(
            f"duplicate key {key!r} at line {line} (first given at line {first_line}):"
            " a key may appear once per mapping",
            line,
        )
        self.key = key
        self.first_line = first_line


#: nodes (scalars, sequences and mappings) a document may hold once every alias is expanded; a
#: case file of 20,000 items with a dozen fields each stays well below it
MAX_EXPANDED_NODES = 1_000_000


_STR_TAG = "tag:yaml.org,2002:str"


def _refuse_duplicate_keys(node: Any, construct_key: Any) -> None:
    """Raise :class:`DuplicateYamlKeyError` when the mapping ``node`` gives a key twice (merge keys aside)."""
    pairs = node.value
    # The common case, cheaply: every key a plain string (its node's value), all different.
    try:
        names = {key_node.value for key_node, _ in pairs if key_node.tag == _STR_TAG}
    except TypeError:  # an explicit !!str on a collection: construction refuses it, with its own message
        names = set()
    if len(names) == len(pairs):
        return
    import yaml

    first: dict[Any, Any] = {}
    for key_node, _ in pairs:
        if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
            continue  # a mapping or sequence as a key cannot be a dict key anyway: construction refuses it
        try:
            key = key_node.value if key_node.tag == _STR_TAG else construct_key(key_node)
            earlier = first.setdefault(key, key_node)
        except (yaml.YAMLError, TypeError, ValueError):
            continue  # construction reports a bad scalar itself, with its own message
        if earlier is not key_node:
            raise DuplicateYamlKeyError(key, key_node.start_mark.line + 1, earlier.start_mark.line + 1)


def _expanded_size(root: Any, limit: int, construct_key: Any = None) -> int:
    """Nodes in the document with every alias expanded, counted once per distinct node (memoized).

    With ``construct_key`` (the loader's ``construct_object``) every mapping's keys are checked for
    duplicates on the way, each distinct mapping once.
    """
    import yaml

    sizes: dict[int, int] = {}
    in_progress: set[int] = set()

    def size(node: Any) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in in_progress:
            raise YamlSyntaxError("an alias refers to a node that contains it (a recursive structure)", None)
        in_progress.add(key)
        total = 1
        if isinstance(node, yaml.SequenceNode):
            for child in node.value:
                total += size(child)
                if total > limit:
                    break
        elif isinstance(node, yaml.MappingNode):
            if construct_key is not None:
                _refuse_duplicate_keys(node, construct_key)
            for key_node, value_node in node.value:
                total += size(key_node) + size(value_node)
                if total > limit:
                    break
        in_progress.discard(key)
        if total > limit:
            raise YamlSyntaxError(
                f"the document expands to more than {limit:,} nodes once its aliases (*name) are resolved", None
            )
        sizes[key] = total
        return total

    return size(root)


_SEQ_TAG = "tag:yaml.org,2002:seq"
_MAP_TAG = "tag:yaml.org,2002:map"
#: key tags PyYAML's mapping construction treats specially (``<<: *base`` merges, the ``=`` key)
_SPECIAL_KEY_TAGS = ("tag:yaml.org,2002:merge", "tag:yaml.org,2002:value")


class _NotPlain(Exception):
    """A node :func:`_construct` leaves to PyYAML's own constructor."""


def _construct(root: Any, loader: Any) -> Any:
    """The document's Python objects, as ``loader.construct_document(root)`` builds them, faster.

    PyYAML builds every mapping and sequence through generator-based Python constructors (even
    its C loader only composes nodes in C): most of a first read of 10,000 case items. Plain
    mappings, sequences and strings, nearly everything a case file holds, are built here
    directly; every other scalar (numbers, booleans, null, dates) by the loader's own
    constructor. A shared node (an alias) becomes one shared object, as in PyYAML. Anything else
    (merge keys, ``!!set`` and other tagged collections, a collection as a key), and any
    document a scalar of fails to construct, is left to PyYAML whole, so its objects and its
    errors are PyYAML's.
    """
    import yaml

    scalar, sequence, mapping = yaml.ScalarNode, yaml.SequenceNode, yaml.MappingNode
    construct_scalar = loader.construct_object
    built: dict[int, Any] = {}

    def build(node: Any) -> Any:
        kind = node.__class__
        if kind is scalar:
            return node.value if node.tag == _STR_TAG else construct_scalar(node)
        if id(node) in built:
            return built[id(node)]
        if kind is sequence and node.tag == _SEQ_TAG:
            items: list[Any] = []
            built[id(node)] = items
            for child in node.value:
                items.append(build(child))
            return items
        if kind is mapping and node.tag == _MAP_TAG:
            pairs: dict[Any, Any] = {}
            built[id(node)] = pairs
            for key_node, value_node in node.value:
                if key_node.__class__ is not scalar or key_node.tag in _SPECIAL_KEY_TAGS:
                    raise _NotPlain
                pairs[build(key_node)] = build(value_node)
            return pairs
        raise _NotPlain

    try:
        return build(root)
    except (_NotPlain, yaml.YAMLError, RecursionError):
        # PyYAML's construction from a clean state: its objects, or the error it reports first
        # (it builds without recursing, so depth is never its problem).
        loader.constructed_objects, loader.recursive_objects, loader.state_generators = {}, {}, []
        return loader.construct_document(root)


def load_yaml(text: str, max_nodes: int = MAX_EXPANDED_NODES) -> Any:
    """The single document in ``text``, as plain Python objects (the safe subset only).

    Raises :class:`YamlSyntaxError` for invalid YAML, for a document that expands beyond
    ``max_nodes`` nodes or refers to itself, and (:class:`DuplicateYamlKeyError`) for a mapping
    that gives a key twice.
    """
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        try:
            _expanded_size(node, max_nodes, loader.construct_object)
        except RecursionError:
            raise YamlSyntaxError("the document is nested too deeply", None) from None
        return _construct(node, loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise YamlSyntaxError(str(exc), mark.line + 1 if mark is not None else None) from exc
    finally:
        loader.dispose()


def load_yaml_cached(text: str, cache: ClipCache | None) -> Any:
    """Like :func:`load_yaml`, reusing an earlier parse of the same text stored in ``cache``.

    Even libyaml leaves the building of Python objects to PyYAML's Python code, a third of the
    time spent collecting 10,000 items; ``json`` reads the same document back in C. The entry is
    keyed by the SHA-256 of the text itself (what is on disk now, never its modification time or
    size), it is sealed with its own checksum, so an entry edited behind the cache's back is a
    counted miss (cache.py) and the text is parsed again, and a document JSON would change (a date,
    a number as a mapping key) is never stored, so a cached parse equals a fresh one.
    """
    if cache is None:
        return load_yaml(text)
    key = parsed_key(text)
    body, _ = cache.read_parsed(key)
    if body is not None:
        try:
            return json.loads(body)
        except ValueError:
            cache.count_damaged("parsed")  # sealed, yet not JSON: never trusted
    data = load_yaml(text)
    # imported here: the plugin imports this module when a run names a file that may be a case file
    from pytest_ttsbench.support.json_documents import dump_json

    try:
        stored = dump_json(data, ensure_ascii=False)
    except (TypeError, ValueError):
        return data
    if json.loads(stored) == data:
        cache.put_parsed(key, stored.encode("utf-8"))
    return data


def parsed_key(text: str) -> str:
    """The parsed-document cache key of a text: the SHA-256 of its content (and of the parse format)."""
    return hashlib.sha256(f"{_PARSE_VERSION}\0{text}".encode()).hexdigest()


def node_lines(text: str, locations: list[tuple[str | int, ...]]) -> list[int | None]:
    """The 1-based line of each location in the document ``text`` (``("items", 3, "txt")``: the
    fourth item's ``txt`` key), so an error can say where to look; read only when there is an error.

    A location that leads nowhere gets the line of the deepest part that exists; a text that does
    not compose gets None for every location.
    """
    import yaml

    try:
        root = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return [None for _ in locations]
    return [_line_of(root, location) for location in locations]


def _line_of(root: Any, location: tuple[str | int, ...]) -> int | None:
    import yaml

    if root is None:
        return None
    node, line = root, root.start_mark.line + 1
    for part in location:
        if isinstance(node, yaml.MappingNode):
            pair = next((pair for pair in node.value if pair[0].value == part), None)
            if pair is None:
                return line
            line, node = pair[0].start_mark.line + 1, pair[1]  # the key's line: where the field is written
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            return line
    return line
