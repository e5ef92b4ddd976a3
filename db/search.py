"""Food search ranking: pure functions, no database (db.fts fetches the candidates).

How a result list is ordered, best first:
1. The query is the food's name, an alias or a USDA common name ("white rice").
2. More query words found as whole words in the name ("rice" in "Rice, white, cooked" beats
   "rice" only as the start of "ricotta"), then in aliases and common names.
3. The name starts with a query word ("Rice, white, ..." for "white rice", not "Oil, rice
   bran"), and has fewer words the query did not ask for.
4. The food's prior (``prior``): foods the models name and everyday foods with a curated alias,
   then foods in USDA's dietary survey (what people report eating), and below them baby
   foods, branded and restaurant items.
Then the person's own matches come first, in tiers (``tier``): favourites, then their own
foods and recently logged foods, then everything else, each tier in the order above: what
someone logged before is most likely what they mean again.

Typos: a query word that is no word of the catalog is replaced by the closest catalog words
(``corrections``), so "spagetti" finds spaghetti.
"""

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from difflib import get_close_matches
from functools import lru_cache

from db.keys import name_key

# Words that never decide a match on their own ("rice with beans").
STOPWORDS = frozenset({"a", "an", "and", "the", "of", "with", "in", "on", "or", "w"})
# Below this similarity a replacement is noise ("tea" ~ "pea" is fine, "tea" ~ "steak" not).
TYPO_CUTOFF = 0.75
MAX_TYPO_CHOICES = 3

# prior(): how much more likely a food is what someone means.
_CURATED = 3.0      # the food the photo models name (shipped labels) or an everyday alias
_SURVEY = 1.0       # SR Legacy row used in USDA's What We Eat in America survey
_GROUP_PENALTY = {
    "Baby Foods": -3.0,
    "American Indian/Alaska Native Foods": -2.0,
    "Fast Foods": -1.0,
    "Restaurant Foods": -1.0,
}
_BRANDED = -1.0     # a brand in capitals in the description ("KELLOGG'S", "McDONALD'S")
_BRAND_RE = re.compile(r"\b[A-Z][A-Z'&.]{2,}\b")

_WORD_RE = re.compile(r"[a-z0-9]+")


@lru_cache(maxsize=65536)
def _words(text: str) -> tuple[str, ...]:
    return tuple(_WORD_RE.findall(name_key(text)))


def words(text: str) -> list[str]:
    """The lower-case, accent-free words of ``text`` (punctuation splits words). Cached: the
    same catalog names are scored again and again."""
    return list(_words(text))


def query_words(text: str) -> list[str]:
    """The words a query searches for: stop words dropped unless nothing else is left."""
    found = words(text)
    kept = [w for w in found if w not in STOPWORDS]
    return list(dict.fromkeys(kept or found))


def prior(*, curated: bool, survey: bool, food_group: str, description: str) -> float:
    """The food's search weight, stored on the row when it is loaded."""
    weight = _CURATED if curated else 0.0
    weight += _SURVEY if survey else 0.0
    weight += _GROUP_PENALTY.get(food_group, 0.0) if not curated else 0.0
    if not curated and _BRAND_RE.search(description):
        weight += _BRANDED
    return weight


def corrections(word: str, vocabulary: Sequence[str]) -> list[str]:
    """Catalog words close to a misspelt ``word`` (best first), at most MAX_TYPO_CHOICES.

    Only words of similar length are compared: a typo changes a word's length by at most a
    couple of letters, and it keeps the comparison fast over ~10,000 words.
    """
    near = [term for term in vocabulary if abs(len(term) - len(word)) <= 2]
    return get_close_matches(word, near, n=MAX_TYPO_CHOICES, cutoff=TYPO_CUTOFF)


@dataclass(frozen=True)
class Candidate:
    food_id: int
    food: str
    category: str
    weight: float
    aliases: tuple[str, ...] = ()
    common_names: str = ""
    own: bool = False
    # Filled by the caller from the person's log.
    recent: bool = False
    favourite: bool = False
    name_words: tuple[str, ...] = field(default=(), compare=False)


def candidate(food_id: int, name: str, category: str, weight: float, aliases: Iterable[str],
              common_names: str | None, *, own: bool = False, recent: bool = False,
              favourite: bool = False) -> Candidate:
    return Candidate(food_id, name, category, weight, tuple(aliases), common_names or "",
                     own, recent, favourite, tuple(words(name)))


def _word_hits(query: Sequence[str], target: Sequence[str]) -> tuple[int, int]:
    """(query words found whole in ``target``, query words that only start a target word).
    A plural counts as whole ("apple" ~ "apples", "peach" ~ "peaches")."""
    whole = prefix = 0
    for word in query:
        if any(t == word or t in (word + "s", word + "es") or word in (t + "s", t + "es")
               for t in target):
            whole += 1
        elif any(t.startswith(word) for t in target):
            prefix += 1
    return whole, prefix


def score(query: Sequence[str], item: Candidate) -> float:
    """How well ``item`` answers the query words; higher is better (see the module doc)."""
    if not query:
        return 0.0
    phrase = " ".join(query)
    aliases = [" ".join(words(a)) for a in item.aliases]
    common = [" ".join(words(c)) for c in item.common_names.split(",") if c.strip()]
    value = item.weight
    if " ".join(item.name_words) == phrase or phrase in aliases:
        value += 10.0
    elif phrase in common:  # USDA's common names are looser ("oatmeal" for dry oats)
        value += 7.0
    whole, prefix = _word_hits(query, item.name_words)
    value += 2.0 * whole + 1.0 * prefix
    other_words = [w for n in (*aliases, *common) for w in n.split()]
    other_whole, _ = _word_hits(query, other_words)
    value += 1.0 * max(0, other_whole - whole)
    first_segment = words(item.food.split(",")[0])
    if _word_hits(query, first_segment)[0]:
        value += 1.5
    extra = max(0, len(item.name_words) - whole - prefix)
    value -= min(3.0, 0.2 * extra)
    return value


def tier(item: Candidate) -> int:
    """2 favourite, 1 own or recently logged, 0 other."""
    return 2 if item.favourite else 1 if item.own or item.recent else 0


def rank(query: Sequence[str], candidates: Iterable[Candidate],
         limit: int) -> list[tuple[Candidate, float]]:
    """The best ``limit`` candidates for the query words with their scores, best first: by
    tier, then score (ties: shorter name first, then alphabetical)."""
    scored = [(c, score(query, c)) for c in candidates]
    scored.sort(key=lambda pair: (-tier(pair[0]), -pair[1], len(pair[0].food), pair[0].food))
    return scored[:limit]
