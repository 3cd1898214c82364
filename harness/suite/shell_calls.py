"""The seed's workspace calls a shell command line makes, as far as its words say: for a
product that works through its shell (Codex CLI's `exec_command`, a user's `Bash`), so that a
tracker reading the seed's tools (the heuristic gate's keyword table) sees the work.

Read: output redirections (`> f`, `>> f`, `&> f`), `tee`, `touch`, `cp` and `sed -i` (a file
written), `mv` (renamed), `rm` (deleted), `cat`, `head`, `tail`, `less`, `wc` (a file read), `ls`
(listed), and the files an `apply_patch` patch adds, updates, moves or deletes (Codex's patch
format, in a heredoc or as a tool's argument). What a program writes by itself (`python
make.py`) is not in the words and is not read. Each call is checked against the workspace after
the command ran (`settled`): a write whose file is not there, a delete whose file still is, are
dropped, so a misread command ticks nothing that did not happen."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any

Call = tuple[str, dict[str, Any]]

#: commands that only read the files they name
_READERS = frozenset({"cat", "head", "tail", "less", "more", "wc"})
#: words that run the next word as the command
_PREFIXES = frozenset({"sudo", "env", "command", "exec", "time", "nohup"})
_SEPARATORS = frozenset({";", "&&", "||", "|", "&", "(", ")", "|&", ";;"})
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")
_PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+?)\s*$", re.MULTILINE)
_PATCH_MOVE = re.compile(r"^\*\*\* Move to: (.+?)\s*$")
PATCH_START = "*** Begin Patch"


def _inside(path: str, root: str) -> str | None:
    """`path` relative to the workspace `root`, None if it leaves it or is no file name."""
    if not path or path.startswith("-") or path in ("/dev/null", "-"):
        return None
    pure = PurePosixPath(path)
    if pure.is_absolute():
        try:
            pure = pure.relative_to(root)
        except ValueError:
            return None
    if ".." in pure.parts or str(pure) == ".":
        return None
    return str(pure)


def _without_heredocs(command: str) -> tuple[str, list[str]]:
    """The command with its heredocs' bodies taken out, and the bodies."""
    lines, bodies, out = command.split("\n"), [], []
    index = 0
    while index < len(lines):
        line = lines[index]
        out.append(line)
        index += 1
        for _, marker in _HEREDOC.findall(line):
            body = []
            while index < len(lines) and lines[index].strip() != marker:
                body.append(lines[index])
                index += 1
            index += 1  # the marker line
            bodies.append("\n".join(body))
    return "\n".join(out), bodies


def _simple_commands(text: str) -> Iterator[list[str]]:
    """Each simple command's words (redirection operators kept as words), split at `;`, `&&`,
    `||`, `|`, `&` and new lines; a line shlex cannot split is skipped."""
    for line in text.replace("\\\n", " ").split("\n"):
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = "#"
        try:
            words = list(lexer)
        except ValueError:  # an unclosed quote: the words are not certain
            continue
        current: list[str] = []
        for word in words:
            if word in _SEPARATORS:
                if current:
                    yield current
                current = []
            else:
                current.append(word)
        if current:
            yield current


def _redirections(words: list[str]) -> tuple[list[str], list[str]]:
    """The command's words without its redirections, and the files it redirects output to."""
    plain, written = [], []
    index = 0
    while index < len(words):
        word = words[index]
        if re.fullmatch(r"[0-9]*(>|>>|>\||&>|&>>)", word) or word in (">", ">>"):
            target = words[index + 1] if index + 1 < len(words) else ""
            if target != "&":  # `>&2`: a descriptor, not a file
                written.append(target)
            index += 2
            continue
        if re.fullmatch(r"[0-9]*<+", word):  # an input, a heredoc's marker
            index += 2
            continue
        if re.fullmatch(r"[0-9]+", word) and index + 1 < len(words) and words[index + 1][0] in "<>":
            index += 1  # `2> f`: the descriptor's number
            continue
        plain.append(word)
        index += 1
    return plain, written


#: options of the readers that take the next word as their value (`head -n 3`)
_VALUED = frozenset({"-n", "-c"})


def _operands(words: list[str]) -> list[str]:
    """A command's operands: its words after the name that are not options (nor the values of
    a reader's valued options)."""
    valued = _VALUED if PurePosixPath(words[0]).name in _READERS else frozenset()
    out, skip = [], False
    for word in words[1:]:
        if skip:
            skip = False
        elif word.startswith("-"):
            skip = word in valued
        else:
            out.append(word)
    return out


def _command_calls(words: list[str], root: str) -> Iterator[Call]:
    plain, written = _redirections(words)
    for target in written:
        if (path := _inside(target, root)) is not None:
            yield "write_file", {"path": path}
    while plain and (plain[0] in _PREFIXES or re.fullmatch(r"[A-Za-z_]\w*=.*", plain[0])):
        plain = plain[1:]
    if not plain:
        return
    name, operands = PurePosixPath(plain[0]).name, _operands(plain)
    paths = [p for p in (_inside(o, root) for o in operands) if p is not None]
    if name in ("tee", "touch"):
        yield from (("write_file", {"path": p}) for p in paths)
    elif name == "cp" and len(operands) == 2 and (dst := _inside(operands[1], root)):
        yield "write_file", {"path": dst}
    elif name == "sed" and any(w.startswith("-i") or w == "--in-place" for w in plain[1:]):
        if paths:
            yield "write_file", {"path": paths[-1]}
    elif name == "mv" and len(operands) == 2 and len(paths) == 2:
        yield "rename_file", {"src": paths[0], "dst": paths[1]}
    elif name == "rm":
        yield from (("delete_file", {"path": p}) for p in paths)
    elif name in _READERS:
        yield from (("read_file", {"path": p}) for p in paths)
    elif name == "ls":
        yield "list_files", {}


def patch_calls(patch: str, root: str) -> list[Call]:
    """The files an `apply_patch` patch adds, updates (or moves) and deletes, as seed calls."""
    calls: list[Call] = []
    lines = patch.split("\n")
    for number, line in enumerate(lines):
        found = _PATCH_FILE.match(line)
        if found is None or (path := _inside(found.group(2), root)) is None:
            continue
        kind = found.group(1)
        moved = _PATCH_MOVE.match(lines[number + 1]) if number + 1 < len(lines) else None
        if kind == "Delete":
            calls.append(("delete_file", {"path": path}))
        elif moved and (dst := _inside(moved.group(1), root)) is not None:
            calls.append(("rename_file", {"src": path, "dst": dst}))
            calls.append(("write_file", {"path": dst}))
        else:
            calls.append(("write_file", {"path": path}))
    return calls


def shell_calls(command: str, root: str) -> list[Call]:
    """The seed calls a command line's words say it makes, in order (unsettled)."""
    text, bodies = _without_heredocs(command)
    calls = [c for words in _simple_commands(text) for c in _command_calls(words, root)]
    for body in bodies:
        if PATCH_START in body:
            calls += patch_calls(body, root)
    return calls


def settled(calls: list[Call], root: str) -> list[Call]:
    """The calls the workspace bears out after the command ran: a written file is there, a
    deleted one is not, a renamed one is at its new name only."""
    base = Path(root)

    def there(path: str) -> bool:
        return (base / path).is_file()

    kept = []
    for name, args in calls:
        if name == "write_file" and not there(args["path"]):
            continue
        if name == "delete_file" and there(args["path"]):
            continue
        if name == "rename_file" and (there(args["src"]) or not there(args["dst"])):
            continue
        if name == "read_file" and not there(args["path"]):
            continue
        kept.append((name, args))
    return kept
