"""Entities and relations of one entry, cheaply and offline (the LLM refines, if set).

English: runs of capitalised words ("Mount Everest", "ClickHouse", "Caroline"), with
connectors inside ("Bank of America"); a capitalised word that only starts a
sentence counts when it also appears capitalised elsewhere, is followed by a
possessive, or is a name the user already has — common words that open a sentence
("Yesterday", "The") never do. Names the user already has are also found written
in lower case ("caroline"), except very short ones and stop words. Chinese: jieba's
part-of-speech tags (nr person, ns place, nt organisation, nz other proper noun), on
the dictionary ``memvault.text`` loaded, under one lock (:mod:`.tagging`). Types come
from cues (a title, an organisation suffix, a list of well-known tools, "project X")
and are "unknown" when nothing tells. Two entities one entry names are related
(``mentioned_with``), unless the LLM says how.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import compress

from ..llm.client import LLMFor
from ..names import candidate_keys, display_name, name_key
from ..stores.graph_values import MENTIONED_WITH, UNKNOWN, Mention, RelationMention
from ..text import ENGLISH_STOPWORDS, QUESTION_WORDS, _segmenter
from . import tagging
from .extraction import MAX_ENTITIES, MAX_RELATED, Extraction
from .llm import extraction_messages, parse_extraction

log = logging.getLogger(__name__)


# The look ahead first: the look-behinds run only where a sentence may end.
_SENTENCE_END = re.compile(
    r"(?=[.!?。！？])(?<!\bDr)(?<!\bMr)(?<!\bMs)(?<!\bMrs)(?<!\bSt)(?<!\bMt)(?<!\bProf)"
    r"[.!?。！？]+\s*|\n+"
)
_TOKEN = re.compile(r"[^\W_](?:[\w.&+'’-]*[\w+])?|[^\w\s]")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# Scripts without letter case (a key of these alone matches only itself).
_UNCASED = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")
_CONNECTORS = frozenset({"of", "de", "del", "da", "van", "von", "&"})

# Words that are capitalised for other reasons than naming something.
_COMMON_CAPITALISED = (
    frozenset(
        """
        i i'm i've i'll i'd im ok okay yes no hi hey hello thanks thank sorry please well oh
        wow yeah yep nope sure great good nice cool awesome amazing really so just also but
        and or then now today yesterday tomorrow tonight recently lately anyway maybe perhaps
        actually monday tuesday wednesday thursday friday saturday sunday january february
        march april may june july august september october november december mon tue wed thu
        fri sat sun mr mrs ms dr prof sir madam lol omg btw fyi asap etc
        """.split()
    )
    | ENGLISH_STOPWORDS
    | QUESTION_WORDS
)

# Everyday words that open sentences: not names there, though they may be elsewhere
# ("Go", "Grace", "Hope").
_OPENERS = frozenset(
    """
    thanks congrats congratulations sounds love loved glad hope hoping honestly totally
    definitely absolutely exactly right true wait look listen guess anyway indeed agreed
    awesome wonderful fantastic lovely sweet haha hah hmm um uh ah aw aww yay nah yup
    let let's that's it's i'm you're we're they're he's she's there's what's here's don't
    can't won't didn't isn't wasn't aren't couldn't wouldn't shouldn't doesn't haven't
    last next first second finally later earlier sometimes often usually always never
    speaking talking thinking going getting having being doing making trying feeling
    one two three four five six seven eight nine ten some many much lots every each another
    happy bye goodbye goodnight morning evening afternoon night day week month year
    keep take make give tell ask try stay enjoy remember imagine check see come go get
    use using prefer prefers avoid answer reply write call send run deploy ship install
    switch add fix set note notes decision decisions decided todo reminder preference rule
    goal summary context fact user assistant system
    """.split()
)

# Endings of words that open a sentence without naming anything (adverbs, verb forms).
_EVERYDAY_ENDINGS = ("ly", "ing", "ed", "n't", "'ll", "'ve", "'re", "'d")

_PERSON_TITLES = frozenset({"mr", "mrs", "ms", "miss", "dr", "prof", "professor", "aunt", "uncle"})
_ORG_WORDS = frozenset(
    """
    inc inc. corp corp. corporation ltd ltd. llc gmbh co company university college school
    institute foundation bank group labs lab agency ministry department association club
    society council hospital church team
    """.split()
)
_PLACE_WORDS = frozenset(
    """
    city town village street st road avenue park lake river mountain mount mt island beach
    county state province country valley bay coast airport station square bridge
    """.split()
)
_TOOLS = frozenset(
    """
    python go golang rust java javascript typescript kotlin swift ruby php perl scala haskell
    c++ c# node.js nodejs react vue angular django flask fastapi rails spring docker
    kubernetes k8s terraform ansible git github gitlab jira confluence slack notion figma
    postgres postgresql mysql mariadb sqlite redis mongodb clickhouse kafka elasticsearch
    spark hadoop airflow pandas numpy pytorch tensorflow linux windows macos ios android
    excel vscode vim emacs aws gcp azure openai chatgpt claude llama jieba onnx
    """.split()
)
_PROJECT_WORDS = frozenset({"project", "projects", "initiative", "programme", "program"})

# Cues around a name that say what it names. A relation word or a greeting before it, or
# a verb only people do after it: a person ("my sister Emma", "call Bob", "Caroline
# said"). "in"/"to"/"from" after a verb of going or living: a place ("moved to Lisbon").
# "at"/"for" after a verb of working, or "joined": an organisation ("works at Google").
_RELATIVES = frozenset(
    """
    sister brother mom mum mother dad father wife husband son daughter friend friends
    colleague colleagues coworker boss manager partner girlfriend boyfriend cousin aunt
    uncle grandma grandpa grandmother grandfather neighbor neighbour teacher teammate
    niece nephew fiancé fiance fiancée fiancee roommate mentor
    call called calling met meet meeting told tell telling ask asked asking email emailed
    text texted thank thanked congratulate hi hey dear
    """.split()
)
_PERSON_VERBS = frozenset(
    """
    said says say told tells asked asks thinks thought feels felt wants wanted likes liked
    loves loved hates hated prefers preferred went goes lives lived works worked visited
    moved joined painted met married wrote called texted smiled laughed cried replied
    mentioned shared enjoys enjoyed adopted studies studied teaches taught herself himself
    """.split()
)
_TALKS = frozenset(
    {
        "talk",
        "talks",
        "talked",
        "talking",
        "spoke",
        "speak",
        "speaking",
        "chat",
        "chatted",
        "chatting",
        "wrote",
        "write",
        "writing",
        "said",
        "sent",
        "explained",
    }
)
_PLACE_BEFORE = frozenset({"in", "to", "from", "near"})
_PLACE_VERBS = frozenset(
    """
    live lives lived living moved move moving relocated travel travels travelled traveled
    travelling traveling trip flew fly flying went go goes going based born grew raised
    stay stays stayed staying holiday vacation back arrived headed heading
    """.split()
)
_VISITS = frozenset({"visited", "visiting", "visit", "visits", "near"})
_ORG_BEFORE = frozenset({"at", "for"})
_WORK_VERBS = frozenset(
    """
    work works worked working job intern interned interning employed hired engineer
    developer manager
    """.split()
)
_JOINS = frozenset({"joined", "joining", "join", "joins"})
# Languages and nationalities: capitalised, but neither people nor places ("in English").
_LANGUAGES = frozenset(
    """
    english chinese mandarin cantonese french german spanish italian japanese korean russian
    portuguese arabic hindi dutch swedish welsh polish greek turkish vietnamese thai latin
    american british european asian african canadian australian
    """.split()
)

# jieba part-of-speech flags that name things, and their types.
_JIEBA_TYPES = {
    "nr": "person",
    "nrfg": "person",
    "nrt": "person",
    "ns": "place",
    "nt": "organisation",
    "nz": UNKNOWN,
}

_posseg_lock = threading.Lock()

# jieba tags many words it does not know as a person's name (乌龙茶, 阿里巴巴): a Chinese
# name is two to four characters after one of the common surnames. Otherwise the ending
# tells an organisation or a place; what is left keeps no type.
_SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程"
    "苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝"
    "龚邵万钱严覃武戴莫孔向汤常温康施文牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞"
    "左柳甘祝包宁尚符舒阮柯纪梅童凌毕单季裴霍涂成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍华喻祁蒲房滕"
    "屈饶解牟艾尤阳时穆农司卓古吉缪简车项连芦麦褚娄窦戚岑景党宫费卜冷晏席卫米柏宗瞿桂全佟应臧"
    "闵苟邬边卞姬师和仇栾隋商刁沙荣巫寇桑郎甄丛仲虞敖巩明佘池查麻苑迟邝"
)
_DOUBLE_SURNAMES = ("欧阳", "司马", "上官", "诸葛", "东方", "皇甫", "令狐", "慕容", "长孙", "宇文")
_ZH_ORG_ENDINGS = (
    "公司",
    "集团",
    "大学",
    "学院",
    "中学",
    "小学",
    "银行",
    "医院",
    "研究院",
    "研究所",
    "实验室",
    "协会",
    "基金会",
    "委员会",
    "事务所",
    "工作室",
    "科技",
    "有限",
    "团队",
    "部门",
)
_ZH_PLACE_ENDINGS = ("省", "市", "县", "区", "镇", "村", "路", "街", "山", "湖", "河", "岛")
#: Well-known organisations jieba tags as names of people or of nothing.
_ZH_ORGS = frozenset(
    """
    阿里巴巴 阿里 腾讯 百度 华为 字节跳动 小米 京东 美团 网易 拼多多 滴滴 蚂蚁集团 中兴 联想
    """.split()
)
# "项目代号：星河", "项目 星河", "代号“星河”": what follows names a project.
_ZH_PROJECT = re.compile(
    r"(?:项目代号|项目名称?|代号)[\s:：是为叫“\"「『]*([\u4e00-\u9fffA-Za-z0-9]{2,8}?)(?=[\s，。,.;；：:”\"」』！!？?、]|$)"
)


def _chinese_type(word: str, tagged: str) -> str:
    """The type of a word jieba tagged ``tagged``, checked against its form."""
    if word in _ZH_ORGS or word.endswith(_ZH_ORG_ENDINGS):
        return "organisation"
    if tagged == "person":
        named = (word[:1] in _SURNAMES and 2 <= len(word) <= 3) or (
            word.startswith(_DOUBLE_SURNAMES) and 3 <= len(word) <= 4
        )
        return "person" if named else UNKNOWN
    if tagged == UNKNOWN and word.endswith(_ZH_PLACE_ENDINGS) and len(word) >= 3:
        return "place"
    return tagged


@dataclass
class _Found:
    order: list[str] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)
    types: dict[str, str] = field(default_factory=dict)

    def add(self, name: str, kind: str = UNKNOWN) -> None:
        shown = display_name(name)
        key = name_key(shown)
        if not key or len(key) < 2 or _everyday(key):
            return
        if key not in self.names:
            self.order.append(key)
            self.names[key] = shown
            self.types[key] = kind
        elif self.types[key] == UNKNOWN and kind != UNKNOWN:
            self.types[key] = kind


def _everyday(key: str) -> bool:
    """A capitalised everyday word ("Thanks", "Fridays"), not a name."""
    return key in _COMMON_CAPITALISED or (key.endswith("s") and key[:-1] in _COMMON_CAPITALISED)


def _possessive(token: str) -> bool:
    """ "Bob's" ends a name: "Bob's Project Zeus" names Bob, then Project Zeus."""
    return token.lower().endswith(("'s", "’s"))


def _type_of(
    words: Sequence[str],
    before: str | None,
    *,
    earlier: str | None = None,
    after: str | None = None,
) -> str:
    """The type the words around a name give it (``before``, the word ahead of that,
    ``earlier``, and the word after, ``after``), or :data:`UNKNOWN`."""
    kind = _type_by_form(words, before)
    if kind != UNKNOWN or words[0].lower() in _LANGUAGES:
        return kind
    b = (before or "").lower()
    e = (earlier or "").lower()
    a = (after or "").lower()
    if a in _PROJECT_WORDS:
        return "project"  # "the Zeus project"
    if b in _RELATIVES or a in _PERSON_VERBS or (_possessive(words[-1]) and a in _RELATIVES):
        return "person"
    if b in {"to", "with"} and e in _TALKS:  # "talking to Sam"
        return "person"
    # "visited Paris", but "visited Caroline in Berlin" visits someone somewhere.
    if (b in _PLACE_BEFORE and e in _PLACE_VERBS) or (b in _VISITS and a not in {"in", "at"}):
        return "place"
    if (b in _ORG_BEFORE and e in _WORK_VERBS) or b in _JOINS:
        return "organisation"
    return UNKNOWN


def _type_by_form(words: Sequence[str], before: str | None) -> str:
    """The type the name's own words (or a title ahead of it) give it."""
    lowered = [w.lower() for w in words]
    if before is not None and before.lower().rstrip(".") in _PERSON_TITLES:
        return "person"
    if lowered[-1] in _ORG_WORDS or (len(words) > 1 and lowered[0] in _ORG_WORDS):
        return "organisation"
    if lowered[-1] in _PLACE_WORDS or lowered[0] in {"mount", "mt", "lake", "river"}:
        return "place"
    if before is not None and before.lower() in _PROJECT_WORDS:
        return "project"
    if lowered[0] in _PROJECT_WORDS and len(words) > 1:
        return "project"
    if len(words) == 1 and lowered[0] in _TOOLS:
        return "tool"
    return UNKNOWN


def _capitalised(word: str) -> bool:
    if not word[:1].isalpha():
        return False
    # Caroline, ClickHouse, NASA, iPhone, PostgreSQL: an upper-case letter up front, or
    # inside a word that is not all lower case.
    if word.isascii():  # the common case, at C speed: starting with a letter, a word
        return not word.islower()  # that is not all lower case has an upper-case one
    return word[0].isupper() or any(c.isupper() for c in word[1:])


def _english(text: str, found: _Found, known: set[str]) -> None:
    sentences = [s for s in _SENTENCE_END.split(text) if s.strip()]
    capitalised_inside: set[str] = set()
    tokenised = []
    for sentence in sentences:
        tokens = _TOKEN.findall(sentence)
        # Whether each token is capitalised, asked once; a token in lower case never is.
        caps = [False if t.islower() else _capitalised(t) for t in tokens]
        tokenised.append((tokens, caps))
        capitalised_inside.update(map(str.lower, compress(tokens[1:], caps[1:])))
    for tokens, caps in tokenised:
        # A name starts at a capitalised token: only those are read (most tokens are in
        # lower case), from where the last name ended on.
        resume = 0
        for i in compress(range(len(tokens)), caps):
            if i < resume:
                continue
            token = tokens[i]
            if token.lower() in _CONNECTORS:
                continue
            opener = _everyday(token.lower()) or (i == 0 and token.lower() in _OPENERS)
            if opener and i + 1 < len(tokens) and caps[i + 1]:
                continue  # "Then Grace", "Thanks Priya": the name starts after the opener
            j = i + 1
            while j < len(tokens) and not _possessive(tokens[j - 1]):
                if caps[j] and tokens[j].lower() not in _COMMON_CAPITALISED:
                    j += 1
                elif (
                    tokens[j].lower() in _CONNECTORS
                    and j + 1 < len(tokens)
                    and caps[j + 1]
                    and tokens[j + 1].lower() not in _COMMON_CAPITALISED
                ):
                    j += 2
                else:
                    break
            words = tokens[i:j]
            k = i - 1
            while k >= 0 and tokens[k] == ".":
                k -= 1
            before = tokens[k] if k >= 0 else None
            if i == 0 and len(words) == 1:
                # A capitalised word that opens a sentence may be any word: it counts
                # unless it looks like an everyday one (a common opener, an adverb,
                # a verb form), or seen as a name elsewhere.
                low = token.lower()
                if not (
                    low in capitalised_inside
                    or name_key(token) in known
                    or any(c.isupper() for c in token[1:])
                    or not (_everyday(low) or low in _OPENERS or low.endswith(_EVERYDAY_ENDINGS))
                ):
                    resume = j
                    continue
            if len(words) == 1 and _everyday(words[0].lower()):
                resume = j
                continue
            earlier = tokens[k - 1] if k >= 1 else None
            after = tokens[j] if j < len(tokens) else None
            found.add(" ".join(words), _type_of(words, before, earlier=earlier, after=after))
            resume = j


@lru_cache(maxsize=4096)
def _chinese_names(run: str) -> tuple[tuple[str, str], ...]:
    """(word, type) for the proper nouns jieba tags in a CJK run (``jieba.posseg``'s
    tags, its unknown stretches searched by numpy: :mod:`.tagging`)."""
    _segmenter()  # the dictionary memvault.text loaded
    with _posseg_lock:
        pairs = tagging.cut(run)
    return tuple(
        (word, _chinese_type(word, _JIEBA_TYPES[flag]))
        for word, flag in pairs
        if flag in _JIEBA_TYPES and len(word) > 1
    )


def extract_rules(
    text: str,
    *,
    known: Callable[[Sequence[str]], Mapping[str, str]] | None = None,
    people: Sequence[str] = (),
    candidates: Sequence[str] | None = None,
) -> Extraction:
    """The entities and co-occurrence relations of ``text`` by the rules alone.

    ``known(keys)`` answers which of the candidate keys are names the user already has
    (the store's ``find_entities``), so they are found in any case; ``people`` are
    names known to be people (the entry's speaker). ``candidates`` are the candidate
    keys (``candidate_keys(text, max_words=3)``) when the caller has them already."""
    found = _Found()
    for person in people:
        found.add(person, "person")
    if known is None:
        candidates = []
    elif candidates is None:
        candidates = candidate_keys(text, max_words=3)
    have = set(known(candidates)) if known is not None and candidates else set()
    _english(text, found, have)
    if _CJK.search(text):
        for run in re.findall(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+", text):
            for word, kind in _chinese_names(run):
                found.add(word, kind)
        for name in _ZH_PROJECT.findall(text):
            found.add(name, "project")
    lowered = text.lower() if text.isascii() else None
    for key in candidates:  # the user's own names, however written here
        if key in have and key not in found.names and _dictionary_worthy(key):
            found.add(_surface(text, key, lowered), UNKNOWN)
    keys = found.order[:MAX_ENTITIES]
    mentions = tuple(Mention(k, found.names[k], found.types[k]) for k in keys)
    related = keys[:MAX_RELATED]
    relations = tuple(
        RelationMention(a, b, MENTIONED_WITH)
        for i, a in enumerate(related)
        for b in related[i + 1 :]
    )
    return Extraction(mentions, relations)


def _dictionary_worthy(key: str) -> bool:
    """A known name found lower-cased counts only when it cannot be an everyday word."""
    if _CJK.search(key):
        return len(key) >= 2
    return len(key) >= 4 and key not in _COMMON_CAPITALISED


def _surface(text: str, key: str, lowered: str | None = None) -> str:
    """How ``key`` is written in ``text`` (else the key itself); ``lowered`` is the
    lower case of ``text`` when it is all ASCII."""
    # Where case cannot differ, ignoring it is finding the key in the lower case (both
    # ASCII) or as it is (CJK has no case): the same first match, without a regex.
    at = None
    if lowered is not None and key.isascii():
        at = lowered.find(key.lower())
    elif _UNCASED.fullmatch(key):
        at = text.find(key)
    if at is not None:
        return text[at : at + len(key)] if at >= 0 else key
    match = re.search(re.escape(key), text, flags=re.IGNORECASE)
    return match.group(0) if match else key


#: The token ledger's name for these calls.
EXTRACT_OPERATION = "extract_entities"


class Extractor:
    """Extraction as the write path runs it: the rules, or the chat model when ``llm``
    gives one (``Vault.llm_call``: budgeted, on the token ledger), falling back to the
    rules when it fails."""

    def __init__(self, llm: LLMFor | None = None) -> None:
        self.llm = llm

    def extract(
        self,
        text: str,
        *,
        user_id: str,
        agent_id: str | None = None,
        known: Callable[[Sequence[str]], Mapping[str, str]] | None = None,
        people: Sequence[str] = (),
        candidates: Sequence[str] | None = None,
    ) -> Extraction:
        rules = extract_rules(text, known=known, people=people, candidates=candidates)
        if self.llm is None or not text.strip():
            return rules
        chat = self.llm(EXTRACT_OPERATION, user_id=user_id, agent_id=agent_id)
        if chat is None:
            return rules
        try:
            reply = chat.complete(extraction_messages(text))
        except Exception as exc:  # an LLM outage must not fail the write
            log.warning("memvault: entity extraction by the LLM failed (%s); rules used", exc)
            return rules
        parsed = parse_extraction(reply)
        if parsed is None:
            log.warning("memvault: the LLM's entity answer was not readable; rules used")
            return rules
        return _merged(parsed, rules)


def _merged(llm: Extraction, rules: Extraction) -> Extraction:
    """The LLM's entities and relations first, then the rules' entities it left out;
    co-occurrence relations only when the LLM gave none."""
    mentions: dict[str, Mention] = {m.key: m for m in llm.mentions}
    for m in rules.mentions:
        if m.key not in mentions:
            mentions[m.key] = m
        elif mentions[m.key].type == UNKNOWN and m.type != UNKNOWN:
            mentions[m.key] = Mention(m.key, mentions[m.key].name, m.type)
    kept = list(mentions.values())[:MAX_ENTITIES]
    keys = {m.key for m in kept}
    relations = [r for r in llm.relations if r.source in keys and r.target in keys]
    if not relations:
        relations = [r for r in rules.relations if r.source in keys and r.target in keys]
    return Extraction(tuple(kept), tuple(relations), by="llm")


__all__ = ["Extractor", "extract_rules"]
