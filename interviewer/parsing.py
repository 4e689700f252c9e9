"""Extracting questions from the guides' page dumps.

Each guide has its own structure; every parser below looks for one structure anywhere in a
text, so a user's document with the same shape is parsed the same way. A document with no
recognisable structure yields no items and is still chunked into passages for retrieval.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from .records import Difficulty, Kind, RawItem
from .sentences import BULLET, key_points

# Site chrome that must never become a question, an answer or a passage.
CHROME = re.compile(
    r"^\s*(?:unlock full question bank|sign in to continue|\d+ practiced|← interview prep.*"
    r"|get access to hundreds of .*|join thousands of developers.*|.*logo.*\.io$|© .*|💡"
    r"|click any question to expand.*)\s*$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Line:
    text: str  # without the newline
    start: int
    end: int

    @property
    def stripped(self) -> str:
        return self.text.strip()


def split_lines(text: str) -> list[Line]:
    lines, pos = [], 0
    for raw in text.split("\n"):
        lines.append(Line(raw, pos, pos + len(raw)))
        pos += len(raw) + 1
    return lines


def is_chrome(line: str) -> bool:
    return bool(CHROME.match(line))


def blank_chrome(text: str) -> str:
    """Replace chrome lines by spaces of equal length, so character spans stay valid."""
    return "\n".join(" " * len(ln) if is_chrome(ln) else ln for ln in text.split("\n"))


# ---------------------------------------------------------------- kinds

_DESIGN = re.compile(
    r"^(design|architect|propose an? (?:\w+ )*(?:architecture|system|platform))\b", re.IGNORECASE
)
_CODING = re.compile(
    r"\b(implement|pseudocode|write (?:a|the) (?:kernel|function|program)|"
    r"refactor)\b",
    re.IGNORECASE,
)
_CONCEPT = re.compile(
    r"^(what|why|explain|describe|compare|how does|how do you (tell|decide|read|"
    r"choose|correctly)|name|when|discuss|define)\b",
    re.IGNORECASE,
)


def infer_kind(question: str, section: str = "") -> Kind:
    if _CODING.search(question):
        return "coding"
    if _DESIGN.search(question) or "system design" in section.lower():
        return "system design"
    if "scenario" in section.lower():
        return "scenario"
    return "concept" if _CONCEPT.search(question) else "scenario"


# ---------------------------------------------------------------- parsers


def _is_section_header(text: str) -> bool:
    s = text.strip()
    return (
        0 < len(s) <= 60
        and not BULLET.match(text)
        and s[-1] not in '.:?!,;)"”'
        and not is_chrome(s)
    )


_HEADED = re.compile(r"^(?P<q>.{8,300}?)\s+(?P<d>easy|medium|hard)\s*$", re.IGNORECASE)


def parse_headed(source: str, lines: list[Line]) -> Iterator[RawItem]:
    """`Question text? easy` headings, each followed by answer paragraphs and bullets."""
    section = ""
    i = 0
    while i < len(lines):
        m = _HEADED.match(lines[i].stripped)
        if not m or not _looks_like_question(m["q"]):
            if lines[i].stripped and _is_section_header(lines[i].text):
                section = lines[i].stripped
            i += 1
            continue
        head = lines[i]
        body: list[Line] = []
        j = i + 1
        while j < len(lines):
            s = lines[j].stripped
            nxt = _HEADED.match(s)
            if (nxt and _looks_like_question(nxt["q"])) or (
                s and _is_section_header(lines[j].text)
            ):
                break
            if not is_chrome(s):
                body.append(lines[j])
            j += 1
        reference = join_body(body)
        q = m["q"].strip()
        difficulty: Difficulty = m["d"].lower()  # type: ignore[assignment]
        yield RawItem(
            text=q,
            source=source,
            start=head.start,
            end=body[-1].end if any(b.stripped for b in body) else head.end,
            difficulty=difficulty,
            difficulty_inferred=False,
            kind=infer_kind(q, section),
            reference=reference or None,
            key_points=key_points(reference) if reference else (),
            section=section,
        )
        i = j


def _looks_like_question(q: str) -> bool:
    return q.rstrip().endswith(("?", ".")) or bool(_CONCEPT.match(q))


def join_body(body: list[Line]) -> str:
    while body and not body[-1].stripped:
        body = body[:-1]
    text = "\n".join(b.text.rstrip() for b in body).strip("\n")
    return re.sub(r"\n{3,}", "\n\n", text).strip()


_TABLE_HEAD = re.compile(r"^#\s*Question", re.IGNORECASE)


def parse_rapid_fire(source: str, lines: list[Line]) -> Iterator[RawItem]:
    """`#QuestionExpected Answer` tables whose rows run number, question and answer together."""
    for i, line in enumerate(lines):
        if not _TABLE_HEAD.match(line.stripped):
            continue
        expected = 1
        for row in lines[i + 1 :]:
            s = row.stripped
            if not s:
                continue
            prefix = str(expected)
            if not s.startswith(prefix) or s[len(prefix) : len(prefix) + 1].isdigit():
                break
            body = s[len(prefix) :]
            m = re.search(r"\?(?=\S)", body) or re.search(r"\.(?=[A-Z~0-9])", body)
            if not m:
                break
            q, answer = body[: m.end()].strip(), body[m.end() :].strip()
            yield RawItem(
                text=q,
                source=source,
                start=row.start,
                end=row.end,
                difficulty="easy",
                difficulty_inferred=True,
                kind=infer_kind(q, "rapid-fire"),
                reference=answer,
                key_points=key_points(answer),
                section="Rapid-Fire Questions",
            )
            expected += 1


_DESIGN_HEAD = re.compile(r"^Design\s+\d+\s*:\s*(?P<title>.+)$")
_NUMBERED = re.compile(r"^\s*\d{1,2}\.\s+")


def parse_design_prompts(source: str, lines: list[Line]) -> Iterator[RawItem]:
    """`Design N: title`, a `Prompt:` paragraph, then `Model Answer:` with numbered points."""
    for i, line in enumerate(lines):
        m = _DESIGN_HEAD.match(line.stripped)
        if not m:
            continue
        prompt, answer_items, end = "", [], line.end
        in_answer = False
        for row in lines[i + 1 :]:
            s = row.stripped
            if _DESIGN_HEAD.match(s) or (s and _is_section_header(row.text) and in_answer):
                break
            if s.lower().startswith("prompt:"):
                prompt = s.split(":", 1)[1].strip()
            elif s.lower().startswith("model answer"):
                in_answer = True
            elif in_answer and _NUMBERED.match(row.text):
                answer_items.append(_NUMBERED.sub("", row.text).strip())
                end = row.end
        if not prompt:
            continue
        reference = "\n".join(f"{n}. {a}" for n, a in enumerate(answer_items, 1))
        yield RawItem(
            text=prompt,
            source=source,
            start=line.start,
            end=end,
            difficulty="hard",
            difficulty_inferred=True,
            kind="system design",
            reference=reference or None,
            key_points=tuple(answer_items),
            section=m["title"].strip(),
        )


def parse_faq(source: str, lines: list[Line]) -> Iterator[RawItem]:
    """Lines ending in `?` under a `Frequently Asked Questions` heading, answered below."""
    start = next(
        (i for i, ln in enumerate(lines) if ln.stripped.lower() == "frequently asked questions"),
        None,
    )
    if start is None:
        return
    i = start + 1
    while i < len(lines):
        s = lines[i].stripped
        if s.endswith("?") and len(s) < 200:
            body = []
            j = i + 1
            while j < len(lines) and not lines[j].stripped.endswith("?"):
                if lines[j].stripped and _is_section_header(lines[j].text):
                    break
                body.append(lines[j])
                j += 1
            reference = join_body(body)
            if reference:
                yield RawItem(
                    text=s,
                    source=source,
                    start=lines[i].start,
                    end=body[-1].end,
                    difficulty="easy",
                    difficulty_inferred=True,
                    kind="advice",
                    reference=reference,
                    key_points=key_points(reference),
                    section="FAQ",
                )
            if j < len(lines) and _is_section_header(lines[j].text):
                return
            i = j
        elif s and _is_section_header(lines[i].text):
            return
        else:
            i += 1


_LABEL = re.compile(r"^(?P<d>Easy|Medium|Hard)(?P<k>Technical|System Design|Coding|Behavioral)$")


def parse_labelled(source: str, lines: list[Line]) -> Iterator[RawItem]:
    """`HardTechnical` / `MediumSystem Design` labels, then the question, with no answer."""
    for i, line in enumerate(lines):
        m = _LABEL.match(line.stripped)
        if not m:
            continue
        for row in lines[i + 1 : i + 4]:
            s = row.stripped
            if s and not is_chrome(s):
                label_kind = m["k"].lower()
                kind: Kind = (
                    "system design"
                    if label_kind == "system design"
                    else "coding"
                    if label_kind == "coding" or _CODING.search(s)
                    else infer_kind(s, "")
                )
                yield RawItem(
                    text=s,
                    source=source,
                    start=row.start,
                    end=row.end,
                    difficulty=m["d"].lower(),  # type: ignore[arg-type]
                    difficulty_inferred=False,
                    kind=kind,
                    section=line.stripped,
                )
                break


_QUOTED = re.compile(r"^\s*[-•*]\s*[“\"](?P<q>.+?)[”\"]\s*$")


def parse_quoted_examples(source: str, lines: list[Line]) -> Iterator[RawItem]:
    """Quoted example questions in a topic outline (`- “...”`), with no answers."""
    section = ""
    for line in lines:
        s = line.stripped
        m = _QUOTED.match(line.text)
        if m:
            q = m["q"].strip()
            kind = infer_kind(q, "")
            yield RawItem(
                text=q,
                source=source,
                start=line.start,
                end=line.end,
                difficulty="hard" if kind == "system design" else "medium",
                difficulty_inferred=True,
                kind=kind,
                section=section,
            )
        elif s and not s.startswith(("-", "•")) and _is_section_header(line.text):
            section = s


PARSERS = (
    parse_headed,
    parse_rapid_fire,
    parse_design_prompts,
    parse_faq,
    parse_labelled,
    parse_quoted_examples,
)


def parse_text(source: str, text: str) -> list[RawItem]:
    """Every question found in one document, in document order, without overlaps."""
    from .notes import parse_markdown_qa  # (notes' parser builds on this module's parts)

    lines = split_lines(text)
    parsers = (parse_markdown_qa, *PARSERS)  # (first: it reads a heading's "##" as marks)
    items = [item for parser in parsers for item in parser(source, lines)]
    items.sort(key=lambda it: it.start)
    kept: list[RawItem] = []
    for item in items:
        if kept and item.start < kept[-1].end and item.start >= kept[-1].start:
            continue  # two parsers claimed one span: keep the first
        kept.append(item)
    return kept
