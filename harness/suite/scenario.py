"""Scenario files: pydantic models, the YAML loader, selection and the JSON Schema."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from harness import PACKAGE_DIR, paths
from harness.filekind import read_regular
from harness.matcher import phrase_words
from harness.suite.workspace_tools import SPECS


def _shipped_scenarios() -> Path:
    """The shipped suite: `scenarios/` beside `harness/` in a checkout, `harness/scenarios/`
    inside an installed wheel (pyproject maps the one onto the other)."""
    here = PACKAGE_DIR
    checkout = here.parent / "scenarios"
    return checkout if (here.parent / "pyproject.toml").is_file() else here / "scenarios"


SCENARIO_DIR = _shipped_scenarios()


def own_folder(given: str | Path | None) -> str | None:
    """A scenario folder as a run records it: None for the shipped suite (so logs, model
    arguments and run ids do not carry this machine's path), else the folder given."""
    if given is None or str(given) == str(SCENARIO_DIR):
        return None
    return str(given)


def scenario_folder(given: str | Path | None) -> Path:
    """The folder to read: the one given, or the shipped suite."""
    return Path(given) if given is not None else SCENARIO_DIR


#: every workspace tool and its arguments (required first); rules and references are checked
#: against it; derived from the tools' specs (harness/suite/workspace_tools.py)
TOOL_ARGS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    spec.name: (spec.required, spec.optional) for spec in SPECS
}


class ScenarioError(Exception):
    """A scenario file that cannot be used; the message names the file and the field."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


#: bounds that keep a scenario file from exhausting a run (stated in the README)
MAX_FILE_BYTES = 1_000_000  # one scenario file on disk
MAX_VALUES = 100_000  # values in the parsed YAML, aliases counted each time they are used
MAX_INPUT_FILES = 500  # initial workspace files, literal and generated
MAX_CONTENT_CHARS = 100_000  # one initial file's content


def _confined(value: str) -> str:
    """A path stays inside the workspace (refused at validation, not at run time)."""
    try:
        paths.normalise(value)
    except paths.PathRefused as refused:
        raise ValueError(str(refused).removeprefix("Refused: ")) from refused
    return value


def _not_blank(value: str) -> str:
    """A title says something: empty or whitespace-only text is refused."""
    if not value.strip():
        raise ValueError("must not be blank")
    return value


def _phrases(values: list[str]) -> list[str]:
    """Keywords and aliases name at least one word each: one without any (blank, or only
    punctuation) could never match a todo, so the subtask would never be named."""
    for i, value in enumerate(values):
        if not phrase_words(value):
            raise ValueError(f"entry {i} ({value!r}) has no word, so it can match no todo")
    return values


class FileSpec(_Strict):
    """An initial workspace file."""

    path: str
    content: str = Field("", max_length=MAX_CONTENT_CHARS)

    _path = field_validator("path")(_confined)


class GeneratedFiles(_Strict):
    """`count` files from a pattern; `{i}` is 1-based (format spec allowed, e.g. `{i:02d}`)."""

    pattern: str
    count: int = Field(ge=1, le=200)
    content: str = Field("file {i}\n", max_length=MAX_CONTENT_CHARS)

    @field_validator("pattern", "content")
    @classmethod
    def _only_i(cls, value: str) -> str:
        # str.format can reach attributes or pad to any width: allow `{i}` and `{i:0Nd}` only
        for field in re.findall(r"\{[^{}]*\}", value.replace("{{", "").replace("}}", "")):
            if not re.fullmatch(r"\{i(:0?[1-9]?d)?\}", field):
                raise ValueError(f"placeholder {field} not allowed (use {{i}} or {{i:02d}})")
        return value

    @field_validator("pattern")
    @classmethod
    def _pattern_numbered(cls, value: str) -> str:
        # runs after _only_i: every placeholder left is `{i}` or `{i:0Nd}`
        if value.format(i=1) == value.format(i=2):
            raise ValueError(
                f"'{value}' has no {{i}}: every generated file would get the same name "
                "(use {i} or {i:02d}; one file belongs in `files`)"
            )
        return value

    @field_validator("pattern")
    @classmethod
    def _pattern_confined(cls, value: str) -> str:
        # runs after _only_i, so formatting is safe; `{i}` expands to digits, never a separator
        try:
            paths.normalise(value.format(i=1))
        except paths.PathRefused as refused:
            raise ValueError(f"'{value}' leaves the workspace.") from refused
        return value

    def expand(self) -> list[FileSpec]:
        return [
            FileSpec(path=self.pattern.format(i=i), content=self.content.format(i=i))
            for i in range(1, self.count + 1)
        ]


class ArgConstraint(_Strict):
    """Constraint on one tool argument (compared as text; lists match if any element does)."""

    equals: str | bool | None = None
    ends_with: str | None = None
    contains: str | None = None


class Rule(_Strict):
    """One way to tick a subtask; a subtask is done when any of its rules holds.

    - `tool`: a successful call of one of these tools whose arguments meet `args` (path
      arguments are compared as normalised workspace paths);
    - `check`: the outcome check with this id holds on the workspace after a successful call;
    - `all_of`: every listed tool rule has been met by some successful call, in any order.
    `after` names a subtask that must already be done (e.g. a read that verifies a write).
    """

    tool: str | list[str] | None = None
    args: dict[str, ArgConstraint] = Field(default_factory=dict)
    after: str | None = None
    check: str | None = None
    all_of: list[Rule] | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> Rule:
        kinds = [k for k in ("tool", "check", "all_of") if getattr(self, k) is not None]
        if len(kinds) != 1:
            raise ValueError("a rule needs exactly one of `tool`, `check` or `all_of`")
        if self.tool is None and self.args:
            raise ValueError("`args` constrain a `tool` rule")
        if self.all_of is not None:
            if not self.all_of:
                raise ValueError("`all_of` needs at least one rule")
            if any(part.tool is None or part.after for part in self.all_of):
                raise ValueError("`all_of` lists plain `tool` rules (with `args`, no `after`)")
        return self

    @property
    def tools(self) -> list[str]:
        if self.tool is None:
            return [t for part in self.all_of or [] for t in part.tools]
        return [self.tool] if isinstance(self.tool, str) else list(self.tool)


class Subtask(_Strict):
    """One checkbox of the task: how a todo names it and which calls complete it."""

    id: str
    title: str
    keywords: list[str] = Field(min_length=1)
    #: other phrasings; a todo matches if every word of one alias is in it
    aliases: list[str] = Field(default_factory=list)
    done_when: list[Rule] = Field(min_length=1)

    _title = field_validator("title")(_not_blank)
    _words = field_validator("keywords", "aliases")(_phrases)


class Step(_Strict):
    """One tool call of the reference solution.

    `undo: true` marks a step that reverts a cancelled subtask's work: performed only when that
    work was done before the user cancelled it.
    """

    subtask: str
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    undo: bool = False


class When(_Strict):
    """An event that makes the scripted user speak (after the model turn it happened in)."""

    subtask_done: str | None = None
    tool_called: str | None = None

    @model_validator(mode="after")
    def _one_event(self) -> When:
        if (self.subtask_done is None) == (self.tool_called is None):
            raise ValueError("`when` needs exactly one of `subtask_done` or `tool_called`")
        return self


class UserTurn(_Strict):
    """A scripted user message, delivered after model turn `after_turn`, or after the turn in
    which `when` first happened; in any case as soon as the agent yields to the user.

    A `cancel` may name `undo` checks: if the cancelled work was already done, the gate keeps an
    "undo" box open until those checks hold.
    """

    after_turn: int | None = Field(None, ge=1)
    when: When | None = None
    message: str
    action: Literal["add", "cancel", "rename", "none"] = "none"
    subtask: str | None = None
    new_text: str | None = None
    undo: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _action_needs_subtask(self) -> UserTurn:
        if (self.after_turn is None) == (self.when is None):
            raise ValueError("a user turn needs exactly one of `after_turn` or `when`")
        if self.action != "none" and not self.subtask:
            raise ValueError(f"action '{self.action}' needs `subtask`")
        if self.action == "rename" and not self.new_text:
            raise ValueError("action 'rename' needs `new_text`")
        if self.undo and self.action != "cancel":
            raise ValueError("`undo` belongs to a `cancel`")
        return self


class Compaction(_Strict):
    """Drop all but the last `keep_last` messages after model turn `at_turn`."""

    at_turn: int = Field(ge=1)
    keep_last: int = Field(ge=1)


class _Check(_Strict):
    #: optional name, so a subtask's `done_when` can refer to the check
    id: str | None = None
    path: str

    _path = field_validator("path")(_confined)


class FileExists(_Check):
    kind: Literal["file_exists"]


class FileAbsent(_Check):
    kind: Literal["file_absent"]


class FileEquals(_Check):
    """Exact content, except that trailing newlines are ignored on both sides."""

    kind: Literal["file_equals"]
    content: str


class FileContains(_Check):
    kind: Literal["file_contains"]
    text: str


class XlsxRows(_Check):
    kind: Literal["xlsx_rows"]
    sheet: str | None = None
    rows: list[list[str]]


class CsvRows(_Check):
    kind: Literal["csv_rows"]
    rows: list[list[str]]


class LinesInOrder(_Check):
    kind: Literal["lines_in_order"]
    lines: list[str]


class FilesMatching(_Check):
    """Workspace files matching the glob `path` (`*` stays within a folder); `count` exact,
    or at least one when omitted (`count: 0` says none may exist)."""

    kind: Literal["files_matching"]
    count: int | None = Field(None, ge=0)


class DataEquals(_Check):
    """A YAML, JSON or INI file parses to `value` (at the dotted `key`, if given); INI reads as
    {section: {option: text}}. Key order never matters."""

    kind: Literal["data_equals"]
    format: Literal["yaml", "json", "ini"]
    key: str | None = None
    value: Any


class XlsxSheets(_Check):
    """The workbook's sheet names: `sheets` as a set (order free), and none of `absent`."""

    kind: Literal["xlsx_sheets"]
    sheets: list[str] | None = None
    absent: list[str] = Field(default_factory=list)


class XlsxCells(_Check):
    """The cells of an A1-style `range` (e.g. `A1:B3`) of a sheet equal `rows`, as text."""

    kind: Literal["xlsx_cells"]
    sheet: str | None = None
    range: str = Field(pattern=r"^[A-Z]+[0-9]+(:[A-Z]+[0-9]+)?$")
    rows: list[list[str]]


class RowCount(_Check):
    """A CSV file, or a sheet of an .xlsx file, has exactly `count` rows (header included)."""

    kind: Literal["row_count"]
    sheet: str | None = None
    count: int = Field(ge=0)


OutcomeCheck = Annotated[
    FileExists
    | FileAbsent
    | FileEquals
    | FileContains
    | XlsxRows
    | CsvRows
    | LinesInOrder
    | FilesMatching
    | DataEquals
    | XlsxSheets
    | XlsxCells
    | RowCount,
    Field(discriminator="kind"),
]


class Scenario(_Strict):
    """A scripted multi-step task."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")
    title: str
    tags: list[str] = Field(default_factory=list)
    prompt: str
    files: list[FileSpec] = Field(default_factory=list)
    generated: list[GeneratedFiles] = Field(default_factory=list)
    subtasks: list[Subtask] = Field(min_length=1)
    checks: list[OutcomeCheck] = Field(min_length=1)
    reference: list[Step] = Field(min_length=1)
    user_turns: list[UserTurn] = Field(default_factory=list)
    #: one compaction, or several (each at its own turn)
    compaction: Compaction | list[Compaction] | None = None
    confusions: dict[str, str] = Field(default_factory=dict)
    #: strict: YAML's `true` is not a turn count (lax pydantic would read it as 1)
    max_turns: int = Field(default=40, ge=1, le=500, strict=True)

    _title = field_validator("title")(_not_blank)

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Scenario:
        # frozen, so a deep copy could only equal it: inspect deep-copies a sample's metadata
        # (which holds its scenario) once per declared metric and per epoch
        return self

    @model_validator(mode="after")
    def _cross_references(self) -> Scenario:
        ids = [s.id for s in self.subtasks]
        if len(set(ids)) != len(ids):
            raise ValueError("subtask ids must be unique")
        check_ids = [c.id for c in self.checks if c.id is not None]
        if len(set(check_ids)) != len(check_ids):
            raise ValueError("check ids must be unique")
        undoable = {t.subtask for t in self.user_turns if t.action == "cancel"}
        for i, step in enumerate(self.reference):
            where = f"reference.{i}"
            if step.subtask not in ids:
                raise ValueError(f"{where}.subtask: unknown subtask '{step.subtask}'")
            if step.undo and step.subtask not in undoable:
                raise ValueError(f"{where}.undo: '{step.subtask}' is never cancelled by the user")
            if step.tool not in TOOL_ARGS:
                raise ValueError(f"{where}.tool: unknown tool '{step.tool}'")
            required, optional = TOOL_ARGS[step.tool]
            for name in step.args:
                if name not in (*required, *optional):
                    raise ValueError(
                        f"{where}.args.{name}: {step.tool} has no argument '{name}' "
                        f"(it takes {', '.join((*required, *optional)) or 'none'})"
                    )
            missing = [name for name in required if name not in step.args]
            if missing:
                raise ValueError(f"{where}.args: {step.tool} needs {', '.join(missing)}")
            for name in ("path", "src", "dst"):
                if name in step.args:
                    try:
                        _confined(str(step.args[name]))
                    except ValueError as error:
                        raise ValueError(f"{where}.args.{name}: {error}") from error
        for i, turn in enumerate(self.user_turns):
            if turn.subtask and turn.subtask not in ids:
                raise ValueError(f"user_turns.{i}.subtask: unknown subtask '{turn.subtask}'")
            if turn.when and turn.when.subtask_done and turn.when.subtask_done not in ids:
                raise ValueError(
                    f"user_turns.{i}.when.subtask_done: unknown subtask '{turn.when.subtask_done}'"
                )
            if turn.when and turn.when.tool_called and turn.when.tool_called not in TOOL_ARGS:
                raise ValueError(
                    f"user_turns.{i}.when.tool_called: unknown tool '{turn.when.tool_called}'"
                )
            for check in turn.undo:
                if check not in check_ids:
                    raise ValueError(f"user_turns.{i}.undo: unknown check '{check}'")
            if turn.after_turn is not None and turn.after_turn > self.max_turns:
                raise ValueError(
                    f"user_turns.{i}.after_turn: {turn.after_turn} is beyond max_turns "
                    f"{self.max_turns}, so the user would never speak"
                )
        for compaction in self.compactions:
            if compaction.at_turn > self.max_turns:
                raise ValueError(
                    f"compaction.at_turn: {compaction.at_turn} is beyond max_turns {self.max_turns}"
                )
        for subtask in self.subtasks:
            for j, rule in enumerate(subtask.done_when):
                where = f"subtasks.{subtask.id}.done_when.{j}"
                for part in rule.all_of or [rule]:
                    for tool in part.tools:
                        if tool not in TOOL_ARGS:
                            raise ValueError(f"{where}.tool: unknown tool '{tool}'")
                        known = (*TOOL_ARGS[tool][0], *TOOL_ARGS[tool][1])
                        for name in part.args:
                            if name not in known:
                                raise ValueError(
                                    f"{where}.args.{name}: {tool} has no argument '{name}' "
                                    f"(it takes {', '.join(known) or 'none'})"
                                )
                if rule.after == subtask.id:
                    raise ValueError(f"{where}.after: a subtask cannot come after itself")
                if rule.after and rule.after not in ids:
                    raise ValueError(f"{where}.after: unknown subtask '{rule.after}'")
                if rule.check and rule.check not in check_ids:
                    raise ValueError(f"{where}.check: unknown check '{rule.check}'")
        if len(self.files) + sum(g.count for g in self.generated) > MAX_INPUT_FILES:
            raise ValueError(f"files: more than {MAX_INPUT_FILES} initial files")
        _check_file_layout(self)
        stuck = _waiting_forever(self.subtasks)
        if stuck:
            raise ValueError(
                f"subtasks: {', '.join(stuck)} can never be ticked: their `after` rules wait "
                "on each other in a cycle"
            )
        return self

    @property
    def compactions(self) -> list[Compaction]:
        if self.compaction is None:
            return []
        return self.compaction if isinstance(self.compaction, list) else [self.compaction]

    def all_files(self) -> list[FileSpec]:
        return [*self.files, *(f for g in self.generated for f in g.expand())]

    def added_by_user(self) -> set[str]:
        return {t.subtask for t in self.user_turns if t.action == "add" and t.subtask}

    def initial_subtasks(self) -> list[Subtask]:
        added = self.added_by_user()
        return [s for s in self.subtasks if s.id not in added]

    def subtask(self, subtask_id: str) -> Subtask:
        return next(s for s in self.subtasks if s.id == subtask_id)

    def check(self, check_id: str) -> OutcomeCheck:
        return next(c for c in self.checks if c.id == check_id)


def _check_file_layout(scenario: Scenario) -> None:
    """The initial files can all exist at once: no path twice (compared as normalised, so
    `./README.md` is `README.md`), none that is also a folder of another (`a` and `a/b.txt`),
    none naming the workspace itself."""
    where: dict[str, str] = {}  # normalised path -> the field that declares it
    named = [(f"files.{i}.path", spec.path) for i, spec in enumerate(scenario.files)]
    for j, group in enumerate(scenario.generated):
        named += [(f"generated.{j}.pattern", spec.path) for spec in group.expand()]
    for field, path in named:
        norm = paths.normalise(path)
        if norm == ".":
            raise ValueError(f"{field}: '{path}' is the workspace itself, not a file")
        if norm in where:
            raise ValueError(f"{field}: '{path}' is the same file as {where[norm]}")
        where[norm] = field
    for norm, field in where.items():
        parts = norm.split("/")
        for depth in range(1, len(parts)):
            folder = "/".join(parts[:depth])
            if folder in where:
                raise ValueError(
                    f"{field}: '{norm}' needs a folder '{folder}', but {where[folder]} "
                    "makes a file of that name"
                )


def _waiting_forever(subtasks: Sequence[Subtask]) -> list[str]:
    """Subtasks that can never be ticked because their `after` rules wait on each other."""
    free: set[str] = set()
    changed = True
    while changed:
        changed = False
        for subtask in subtasks:
            if subtask.id not in free and any(
                r.after is None or r.after in free for r in subtask.done_when
            ):
                free.add(subtask.id)
                changed = True
    return [s.id for s in subtasks if s.id not in free]


def _yaml_hint(value: object) -> str:
    """Why YAML gave a non-string where text was expected, and the fix."""
    if isinstance(value, dt.date):
        return f" (YAML read the unquoted date {value} as a date; put it in quotes)"
    if isinstance(value, bool):
        return (
            " (YAML reads unquoted yes/no/on/off/true/false as a boolean; put text in quotes, "
            "write a number as digits)"
        )
    if isinstance(value, int | float):
        return f" (YAML read the unquoted {value} as a number; put it in quotes)"
    if value is None:
        return " (the value is empty or null; write the text, in quotes if it has a ':' or '#')"
    return ""


def _field_path(loc: Sequence[int | str]) -> str:
    return ".".join(str(part) for part in loc) or "(top level)"


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """Safe YAML that refuses duplicate keys (the last would silently win)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key '{key}'", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)  # type: ignore[no-any-return]


def _bounded(data: object) -> None:
    """Refuse YAML whose aliases expand it beyond MAX_VALUES values (an anchor bomb); shared
    values are counted each time they are used, and the walk stops at the bound."""
    budget = MAX_VALUES
    stack = [data]
    while stack:
        value = stack.pop()
        budget -= 1
        if budget < 0:
            raise ValueError(f"expands to more than {MAX_VALUES:,} values (YAML anchors?)")
        if isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)


def load_scenario(path: Path) -> Scenario:
    """Load and validate one YAML scenario; errors name the file and the field."""
    return _parsed(path, "scenario", lambda data: [_validate_scenario(path, data)])[0]


#: what each scenario file parsed to, by its path and content: a run loads the suite several
#: times (the task, the simulated agent, the reference check), and parsing the YAML and
#: validating it is most of the cost; scenarios are frozen, so sharing them is safe
_PARSED: dict[tuple[Path, str, bytes], tuple[Scenario, ...]] = {}


def _parsed(
    path: Path, kind: str, build: Callable[[dict[str, Any]], list[Scenario]]
) -> list[Scenario]:
    raw = _read_bytes(path)
    key = (path.resolve(), kind, hashlib.sha256(raw).digest())
    if key not in _PARSED:  # errors are raised before anything is kept
        _PARSED[key] = tuple(build(_parse_yaml(path, raw)))
    return list(_PARSED[key])


def _read_bytes(path: Path) -> bytes:
    """A scenario file's bytes: regular files only (a fifo would block, `/dev/zero` never
    ends), and at most MAX_FILE_BYTES (one byte more is read, to know it is over)."""
    try:
        kind, raw = read_regular(path, MAX_FILE_BYTES)
    except OSError as error:
        raise ScenarioError(f"{path}: cannot read: {error.strerror or error}") from error
    if kind is not None:
        raise ScenarioError(f"{path}: {kind}, not a regular file; a scenario is a YAML file")
    if len(raw) > MAX_FILE_BYTES:
        raise ScenarioError(f"{path}: larger than {MAX_FILE_BYTES:,} bytes")
    return raw


def _parse_yaml(path: Path, raw: bytes) -> dict[str, Any]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ScenarioError(
            f"{path}: not UTF-8 text (byte 0x{raw[error.start]:02x} at offset {error.start})"
        ) from error
    try:
        data = yaml.load(text, Loader=_Loader)
        _bounded(data)
    except yaml.YAMLError as error:
        raise ScenarioError(f"{path}: cannot read YAML: {_one_line(error)}") from error
    except (ValueError, RecursionError) as error:
        raise ScenarioError(f"{path}: {error or 'nested too deeply'}") from error
    if not isinstance(data, dict):
        raise ScenarioError(f"{path}: expected a mapping at the top level")
    return data


def _one_line(error: yaml.YAMLError) -> str:
    """PyYAML's messages span lines (with a source excerpt); keep problem and position."""
    mark = getattr(error, "problem_mark", None)
    problem = getattr(error, "problem", None) or str(error).splitlines()[0]
    where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
    return f"{problem}{where}"


def _validate_scenario(path: Path, data: dict[str, Any]) -> Scenario:
    if "family" in data:
        raise ScenarioError(f"{path}: a generated family; load it with load_file")
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        more = f" (+{error.error_count() - 1} more)" if error.error_count() > 1 else ""
        given = first.get("input")
        wrong_type = first["type"] == "string_type" or (
            first["type"] == "int_type" and isinstance(given, bool)
        )
        hint = _yaml_hint(given) if wrong_type else ""
        field, message = _field_path(first["loc"]), first["msg"].removeprefix("Value error, ")
        # cross-field errors name their own field at the start of the message
        named = re.match(r"^([\w.\-]+): (.*)$", message, re.S)
        if named and not first["loc"]:
            field, message = named.group(1), named.group(2)
        raise ScenarioError(f"{path}: field '{field}': {message}{hint}{more}") from error
    if scenario.id != path.stem:
        raise ScenarioError(f"{path}: field 'id': '{scenario.id}' must match the file name")
    return scenario


def load_file(path: Path) -> list[Scenario]:
    """The scenarios of one file: a scenario, or every member of a generated family."""
    return _parsed(path, "file", lambda data: _validate_file(path, data))


def _validate_file(path: Path, data: dict[str, Any]) -> list[Scenario]:
    if "family" not in data:
        return [_validate_scenario(path, data)]
    from harness.suite.families import Family

    try:
        raws = Family.model_validate(data).expand(path.stem)
    except (ValidationError, ValueError) as error:
        raise ScenarioError(f"{path}: {_first_error(error)}") from error
    out = []
    for raw in raws:
        try:
            out.append(Scenario.model_validate(raw))
        except ValidationError as error:
            raise ScenarioError(f"{path}: generated {raw['id']}: {_first_error(error)}") from error
    return out


def _first_error(error: ValidationError | ValueError) -> str:
    if not isinstance(error, ValidationError):
        return str(error)
    first = error.errors()[0]
    return f"field '{_field_path(first['loc'])}': {first['msg'].removeprefix('Value error, ')}"


def load_scenarios(
    directory: Path = SCENARIO_DIR, load: Callable[[Path], list[Scenario]] = load_file
) -> list[Scenario]:
    """Every scenario in a directory (generated families expanded), sorted by file; `load`
    reads one file (`harness/run/checked_scenarios.py` also replays its reference)."""
    paths = sorted(directory.glob("*.yaml"))
    if not paths:
        raise ScenarioError(f"{directory}: no *.yaml scenario files found")
    loaded = [(p, s) for p in paths for s in load(p)]
    check_unique_prompts(loaded)
    return [s for _, s in loaded]


def check_unique_prompts(loaded: Iterable[tuple[Path, Scenario]]) -> None:
    """Two scenarios with one prompt are indistinguishable to an agent (and to the sim)."""
    seen: dict[str, Path] = {}
    for path, scenario in loaded:
        key = " ".join(scenario.prompt.split())
        if key in seen:
            raise ScenarioError(
                f"{path}: field 'prompt': the same prompt as {seen[key]}; prompts must be unique"
            )
        seen[key] = path


#: opt-in suites: a scenario with one of these tags runs only when one of its opt-in tags (or its
#: id) is asked for, never in the default suite; tag -> what the suite is for
OPT_IN_TAGS: dict[str, str] = {
    "hard": "the stress suite: long lists, decoys, compactions and user changes at sim/sloppy",
    "field": "the field-rate power suite: many chances for sim/field's faults (docs/statistics.md)",
}
#: the stress suite's tag (`--scenarios hard`)
STRESS_TAG = "hard"


def opt_in(scenario: Scenario) -> set[str]:
    """The opt-in suites a scenario belongs to (empty: it is in the default suite)."""
    return set(scenario.tags) & OPT_IN_TAGS.keys()


def select(scenarios: Iterable[Scenario], wanted: Sequence[str] | str | None) -> list[Scenario]:
    """Filter by ids or tags (comma-separated string or list).

    None or 'all' is the default suite: every scenario without an opt-in tag (`OPT_IN_TAGS`). A
    tag selects from the default suite; an opt-in suite's scenarios come only with one of their
    opt-in tags (`hard`, `field`) or by id.
    """
    pool = list(scenarios)
    default = [s for s in pool if not opt_in(s)]
    if wanted is None or wanted == "all" or wanted == []:
        return _some(default, "the default suite", pool)
    names = [w.strip() for w in (wanted.split(",") if isinstance(wanted, str) else wanted)]
    names = [n for n in names if n]
    if not names:
        return _some(default, "the default suite", pool)
    if "all" in names:
        names = [n for n in names if n != "all"] + [s.id for s in default]
    known = {s.id for s in pool} | {t for s in pool for t in s.tags}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ScenarioError(
            f"unknown scenario id or tag: {', '.join(unknown)} (known: {', '.join(sorted(known))})"
        )
    asked = set(names)
    # a tag picks from the default suite; an opt-in scenario needs one of its opt-in tags or its id
    chosen = [
        s
        for s in pool
        if s.id in asked or (set(s.tags) & asked and (not opt_in(s) or opt_in(s) & asked))
    ]
    return _some(chosen, f"'{','.join(names)}'", pool)


def _some(chosen: list[Scenario], what: str, pool: list[Scenario]) -> list[Scenario]:
    # an empty selection would reach inspect as "the specified dataset is empty"
    if not chosen:
        tags = sorted({t for s in pool for t in opt_in(s)}) or [STRESS_TAG]
        named = " or ".join(f"'{t}'" for t in tags)
        raise ScenarioError(
            f"{what} selects no scenario: the ones it could pick are all tagged {named}"
            f" (opt-in suites run only when asked: add {named} or their ids)"
        )
    return chosen


def json_schema() -> str:
    """The published JSON Schema of the scenario format."""
    return json.dumps(Scenario.model_json_schema(), indent=2, sort_keys=True)
