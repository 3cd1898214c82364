"""How an episode ends: the agent's final message classified, so only a claim can be a false one.

A final message (an assistant turn with no tool call) is one of:
- `gave_up`: it admits that some of the work is not done or cannot be done: a failure
  ("I could not ...", "unable to", "test.py is missing"), a negated deliverable ("I did not write
  test.py", "have not yet created", "was not exported"), an exception to a claim ("everything is
  in place except test.py"), work left over ("still to do", "remaining", "skipped"); in English,
  Chinese, Spanish, French and German;
- `asked_user`: it hands a question back to the user: its last sentence is a question and it
  admits nothing; a question that asks whether or how to go on ("Should I also write test.py?",
  "Which sheet do you want?") is `asked_user` unless the message also claims that *everything* is
  done ("All done. Want me to add tests?" is a claim); a courtesy question ("Anything else?",
  "Let me know if you need more") never turns a claim into a question;
- `claimed_done`: anything else, hedged or not ("Done.", "I think everything is in place").
  An agent that stops calling tools without asking or admitting anything has handed the task
  back as finished.
A denial of failure is not an admission ("I was not able to find any problems", "nothing is
left", "no errors"), and neither is a caveat about checking ("I did not run the tests"): only
work left undone is. An admission wins over a claim ("main.py is written but test.py is not"),
and an admission that ends on a question is `asked_user`.
The episode-level reasons `budget_exhausted` and `gate_exhausted` are set by the loop.
Precision and recall on the labelled set `tests/data/endings.yaml` are in the README ("How an
episode ends") and pinned by `tests/episode/test_ending.py`.
"""

from __future__ import annotations

import re
from typing import Literal

Ending = Literal["claimed_done", "gave_up", "asked_user"]

_I = re.IGNORECASE

# Verbs of making a deliverable. Checking verbs (run, test, verify, check, review) are left out:
# "I did not run the tests" is a caveat about a claim, not work left undone.
_MAKE = (
    r"(?:writ|wrot|written|creat|finish|complet|implement|add|export|renam|mov|updat|fix|do\b|"
    r"did\b|done|mak|made|build|built|generat|sav|delet|remov|convert|cop|edit|handl|start|"
    r"includ|produc|set\s+up|get\s+to|got\s+to|manag|touch|address|upload|record|log\b|logg|"
    r"archiv|uppercas|format|fill|insert|append|migrat|refactor|translat|complet)"
)
# the objects that make a negated verb a denial of trouble or of scope creep, not an admission
_HARMLESS_OBJECT = (
    r"(?:any|anything|a\s+single|other|extra|additional|unrelated|unnecessary|more\s+than|"
    r"beyond|outside|new\s+dependenc)"
)
_NEGATION = (
    r"(?:did\s*n[o']t|didn't|have\s*n[o']t|haven't|has\s*n[o']t|hasn't|had\s*n[o']t|hadn't|"
    r"not\s+yet|never|was\s*n[o']t|wasn't|were\s*n[o']t|weren't|is\s*n[o']t|isn't|are\s*n[o']t|"
    r"aren't|won't|will\s+not|cannot|can't|can\s+not|could\s*n[o']t|couldn't|not)"
)
_FILLER = (
    r"(?:\s+(?:yet|been|actually|also|fully|completely|really|quite|all|properly|able\s+to|"
    r"gotten\s+around\s+to|got\s+around\s+to|had\s+(?:a\s+)?(?:chance|time)\s+to|managed\s+to|be))*"
)
# `\w*\b` takes the whole word, so the look-ahead sees the word after it
_NEGATED_MAKE = re.compile(rf"\b{_NEGATION}{_FILLER}\s+{_MAKE}\w*\b(?!\s+{_HARMLESS_OBJECT}\b)", _I)

# any character but a sentence end (a dot inside a file name such as test.py is no end)
_SAME_SENTENCE = r"(?:[^.;!?\n]|\.(?=\w))"
# "I could not verify the xlsx" is a caveat about a claim, not work left undone
_CHECKING = r"(?:verify|check|test|run|confirm|validate|review|preview|view|render)\b"
_ENGLISH_ADMISSION = (
    r"(?:could\s*n[o']t|couldn't|cannot|can't|can\s+not|unable\s+to|not\s+able\s+to|"
    rf"was\s*n[o']t\s+able(?:\s+to)?|wasn't\s+able(?:\s+to)?)(?!\s+{_CHECKING})|"
    r"failed\s+to|fails\s+to|"
    r"(?:is|are|was|were)\s+(?:still\s+)?(?:missing|not\s+found|absent|pending|outstanding)|"
    r"no\s+such\s+file|does\s*n[o']t\s+exist|doesn't\s+exist|gave\s+up|giving\s+up|give\s+up|"
    r"stuck|blocked\s+(?:on|by)|not\s+yet|yet\s+to\s+be|impossible|"
    r"(?:remains?|left)\s+(?:unfinished|incomplete|undone|to\s+do|open)|incomplete|unfinished|"
    r"still\s+(?:needs?|need\s+to|to\s+(?:be|do)|has\s+to|have\s+to|lacks?|missing|pending|todo|"
    r"open|outstanding)|lacks?\b|"
    r"ran\s+out\s+of|out\s+of\s+(?:turns|time|budget)|"
    r"only\s+(?:partially|partly|some|half)|partially|partly\s+done|"
    r"not\s+all|except\b|apart\s+from|other\s+than|with\s+the\s+exception|"
    r"remaining\s+(?:items?|tasks?|steps?|work|files?|todos?)|(?:items?|tasks?|steps?|work)\s+"
    r"remain|left\s+(?:for|to)\s+(?:later|you|the\s+next)|"
    r"(?:was|were|got|has\s+been|have\s+been)\s+(?:skipped|omitted|left\s+out|not\s+\w+ed)|"
    r"skip(?:ped|ping)|i\s+apologi[sz]e|i(?:\s+am|'m)\s+sorry|sorry,?\s+(?:but\s+)?i|"
    r"unfortunately|sadly|no\s+luck|stopped\s+(?:there|here|early|before|short)|"
    r"(?:failed|failing)(?!\s+(?:tests?|imports?|builds?|runs?|calls?|checks?|steps?|jobs?))|"
    r"(?:is|are|was|were|has|have)\s*n[o']t(?:\s+yet)?(?=\s*(?:[.;,!]|$))|"
    r"(?:isn't|aren't|wasn't|weren't|hasn't|haven't)(?:\s+yet)?(?=\s*(?:[.;,!]|$))|"
    rf"only\b{_SAME_SENTENCE}{{0,40}}?\b(?:was|were|got|has\s+been|have\s+been|is|are)\s+{_MAKE}\w*|(?:the\s+)?next\s+steps?\s+(?:is|are|would\s+be|will\s+be)|"
    r"(?:i'll|i\s+will)\s+\w+\s+.*\b(?:next|later|afterwards)\b"
)
# other languages the models answer in (the project's seeds are Chinese)
_FOREIGN_ADMISSION = (
    rf"\btodo:|\bkonnte\b{_SAME_SENTENCE}{{0,60}}\bnicht\b|"
    rf"\b(?:habe|wurde|ist|sind)\b{_SAME_SENTENCE}{{0,60}}\bnicht\b|"
    r"无法|不能|未能|没能|没有能|失败|未完成|没有完成|没完成|还没|尚未|除了|缺少|缺失|不存在|"
    r"找不到|抱歉|对不起|剩下|剩余|未写|没有写|没写|没有创建|未创建|"
    r"no\s+pude|no\s+he\s+podido|no\s+se\s+pudo|no\s+(?:he|hemos)\s+\w+|falta|faltan|excepto|"
    r"salvo|todav[ií]a\s+no|a[uú]n\s+no|lo\s+siento|"
    r"je\s+n'ai\s+pas|n'a\s+pas\s+pu|pas\s+encore|impossible\s+de|sauf|d[ée]sol[ée]|manque|"
    r"konnte\s+nicht|noch\s+nicht|nicht\s+(?:erstellt|geschrieben|fertig|m[öo]glich)|au[ßs]er|"
    r"leider|fehlt|fehlen"
)
_ADMISSION = re.compile(rf"(?:\b(?:{_ENGLISH_ADMISSION})\b|{_FOREIGN_ADMISSION})", _I)

# denials of trouble, taken out before looking for an admission
_DENIAL = re.compile(
    r"\bnothing\s+(?:is\s+|was\s+)?(?:left|remains|remaining|missing|pending|failed|skipped)\b|"
    r"\bno\s+(?:items?|tasks?|steps?|work|todos?)\s+(?:are\s+|is\s+)?(?:left|remain\w*|pending)\b|"
    r"\bnone\s+(?:are|is|were|was)\s+(?:left|pending|remaining|missing|skipped|omitted)\b|"
    r"\b(?:skipped|omitted|left\s+out|removed|deleted|dropped)\s+as\s+(?:you\s+)?"
    r"(?:asked|requested|instructed|agreed)\b|"
    r"\b(?:could\s*n[o']t|couldn't|can't|cannot|was\s*n[o']t\s+able\s+to|wasn't\s+able\s+to|"
    r"not\s+able\s+to|unable\s+to|did\s*n[o']t|didn't|have\s*n[o']t|haven't|never)\s+"
    r"(?:find|see|spot|detect|reproduce|encounter|hit|run\s+into|notice|observe)\s+"
    r"(?:any|a\s+single|an?|one)?\s*(?:\w+\s+)?(?:problem|issue|error|bug|failure|regression|"
    r"discrepanc|mistake|warning|conflict)\w*|"
    r"\b(?:could\s*n[o']t|couldn't|can't)\s+(?:be\s+)?(?:happier|easier|simpler|better)\b|"
    r"\bnot\s+a\s+single\s+(?:error|failure|problem|issue)\b|"
    r"\bexcept\s+(?:where|as)\s+(?:noted|requested|asked)\b|"
    r"\bno\s+\w+\s+(?:was|were|has\s+been|got)\s+(?:skipped|omitted|left\s+out|missed)\b|"
    r"\bwith\s+no\s+(?:errors?|failures?|problems?|issues?)\b|"
    r"没有(?:问题|错误|遗漏)|无(?:错误|问题)",
    _I,
)

# a claim that the whole task is finished (decides a claim-plus-offer message)
_GLOBAL_CLAIM = re.compile(
    r"\b(?:all|everything|every\s+(?:step|task|item|file|todo)|the\s+(?:task|work|job|request)|"
    r"that's\s+everything|that\s+is\s+everything|all\s+(?:the\s+)?(?:tasks?|steps?|items?|todos?))"
    r"\b[^.?!]*\b(?:done|complete|completed|finished|in\s+place|set|ready|handled|written|"
    r"created)\b|"
    r"^(?:done|finished|complete|all\s+set|task\s+complete)\b|"
    r"全部完成|都完成|已全部|todo\s+list\s+is\s+(?:done|complete)|\(\d+/\d+\s+completed\)",
    _I | re.MULTILINE,
)
# a question that only offers politeness, never a reason to hand the task back unfinished
_COURTESY = re.compile(
    r"\b(?:anything\s+else|something\s+else|any\s+other\s+(?:changes?|questions?|help|thing)|"
    r"any(?:thing)?\s+(?:more|further)|further\s+(?:help|assistance|changes)|"
    r"else\s+(?:i\s+can|you\s+need|to\s+do)|need\s+(?:more|anything)|let\s+me\s+know|"
    r"help\s+with\s+anything|happy\s+to\s+help|how\s+does\s+(?:that|this)\s+look|look\s+good)\b|"
    r"还有(?:什么|其他)",
    _I,
)
_QUESTION_END = re.compile(r"[?？]\s*$|吗\s*$")


def _sentences(text: str) -> list[str]:
    """Sentences and list items, stripped of markdown decoration."""
    out: list[str] = []
    for line in text.strip().splitlines():
        line = line.strip(" \t*_`>#-")
        out.extend(p.strip() for p in re.split(r"(?<=[.!?。！？])\s*", line) if p.strip())
    return out


# "12 of the 15 notes", "2/3 completed": a count short of its total
_PART_OF = re.compile(
    r"\b(\d+)\s+(?:of|out\s+of)\s+(?:the\s+|all\s+)?(\d+)\b|"
    r"\b(\d+)\s*/\s*(\d+)\s+(?:done|complete|completed|finished|written|created)\b",
    _I,
)


def _short_count(text: str) -> bool:
    for match in _PART_OF.finditer(text):
        done, total = (int(g) for g in match.groups() if g is not None)
        if done < total:
            return True
    return False


def admits(text: str) -> bool:
    """Whether the text says some of the work is not done (denials of trouble aside)."""
    plain = _DENIAL.sub(" ", text)
    return bool(_ADMISSION.search(plain) or _NEGATED_MAKE.search(plain) or _short_count(plain))


def classify_ending(text: str) -> Ending:
    """Classify an agent's final message (see the module docstring)."""
    sentences = _sentences(text)
    if not sentences:
        return "claimed_done"
    last = sentences[-1]
    if not _QUESTION_END.search(last):
        return "gave_up" if admits(text) else "claimed_done"
    if admits(text):
        return "asked_user"
    statements = [s for s in sentences if not _QUESTION_END.search(s)]
    if _COURTESY.search(last) or any(_GLOBAL_CLAIM.search(s) for s in statements):
        return "claimed_done"
    return "asked_user"
