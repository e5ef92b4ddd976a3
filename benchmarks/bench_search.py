"""Food search latency over the whole catalog (curated foods, SR Legacy, FNDDS, CoFID and the
Swiss FCDB: ~18,200 foods).

    python -m benchmarks.bench_search [--rounds 3] [--db PATH | --url URL]

Builds a fresh SQLite database from the shipped seed (or fills the empty database at --url, e.g.
a new PostgreSQL database, which searches with LIKE instead of FTS5), timing that first-run
init too, then
runs db.service.search, the function behind the app's search box, /api/foods and
``python -m db search``, for several kinds of query, interleaved over --rounds rounds:
- common: 40 everyday foods ("rice", "orange juice", ...)
- typing: every prefix of some of them, as a person types ("r", "ri", "ric", "rice", ...)
- typos: misspelt words ("spagetti", "chiken brest", ...), which take the correction path
- catalog: the first two words of 300 random catalog names (seeded, so the same each run)
- personal: the common queries for a user with 30 logged foods and 5 favourites
- regional: UK and German words and hypo treatments with the searcher's region set
Prints count, p50, p95 and max in milliseconds per kind and overall; target p95 < 50 ms.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

from benchmarks.common import percentile

COMMON = ["rice", "white rice", "brown rice", "pasta", "spaghetti", "bread", "toast",
          "oatmeal", "milk", "skim milk", "orange juice", "apple juice", "potato",
          "mashed potatoes", "banana", "apple", "orange", "yogurt", "cola", "beer", "wine",
          "coffee", "tea", "egg", "cheese", "chicken breast", "butter", "sugar", "honey",
          "peanut butter", "grapes", "tomato", "carrots", "lentils", "pizza", "french fries",
          "chips", "tortilla", "ice cream", "salmon"]
REGIONAL = [("UK", "orange squash"), ("UK", "digestives"), ("UK", "shepherd's pie"),
            ("UK", "baked beans"), ("DE", "Apfelschorle"), ("DE", "Kartoffelsalat"),
            ("DE", "Brötchen"), ("DE", "Leberkäse"), ("DE", "Gummibärchen"),
            ("US", "juice box"), ("US", "glucose tablets"), ("US", "diet lemonade")]
TYPOS = ["spagetti", "chiken brest", "bananna", "yoghrt", "brocoli", "potatoe", "sandwhich",
         "oatmeel", "cappucino", "tomatos", "letuce", "avacado"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    target = parser.add_mutually_exclusive_group()
    target.add_argument("--db", type=Path, help="database file (default: a temporary one)")
    target.add_argument("--url", help="an empty database to fill instead (any SQLAlchemy URL)")
    args = parser.parse_args(argv)

    from db import personal, service
    from db.session import configure, init_db, session_scope
    from db.tables import Food
    from sqlalchemy import select

    path = args.db or Path(tempfile.mkdtemp(prefix="bench-search-")) / "foodtag.db"
    configure(args.url or f"sqlite:///{path}")
    started = time.perf_counter()
    init_db()
    init_s = time.perf_counter() - started
    print(f"first-run init (migrate + seed {service.food_count()} foods): {init_s:.2f} s")

    with session_scope(write=False) as session:
        names = list(session.scalars(select(Food.name).order_by(Food.id)))
    rng = random.Random(0)
    catalog = [" ".join(name.replace(",", " ").split()[:2]) for name in rng.sample(names, 300)]
    typing = [word[:n] for word in ("rice", "banana", "orange juice", "chicken")
              for n in range(1, len(word) + 1)]

    service.create_user("bench")
    when = datetime(2024, 1, 1, 8)
    for index, name in enumerate(rng.sample(names, 30)):
        service.log_meal("bench", name, grams=100, eaten_at=when + timedelta(hours=index))
    for name in rng.sample(names, 5):
        personal.add_favourite("bench", name)

    kinds = {
        "common": [(q, None, None) for q in COMMON],
        "typing": [(q, None, None) for q in typing],
        "typos": [(q, None, None) for q in TYPOS],
        "catalog": [(q, None, None) for q in catalog],
        "personal": [(q, "bench", None) for q in COMMON],
        "regional": [(q, None, region) for region, q in REGIONAL],
    }
    for query, user, region in kinds["common"][:5]:  # warm-up: caches, the FTS pages
        service.search(query, user=user, region=region)
    timings: dict[str, list[float]] = {kind: [] for kind in kinds}
    for _ in range(args.rounds):
        for kind, queries in kinds.items():  # interleaved: each round runs every kind
            for query, user, region in queries:
                start = time.perf_counter()
                service.search(query, user=user, region=region)
                timings[kind].append((time.perf_counter() - start) * 1000)

    everything = [t for values in timings.values() for t in values]
    print(f"\n{'kind':<10}{'queries':>9}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}")
    for kind, values in [*timings.items(), ("all", everything)]:
        print(f"{kind:<10}{len(values):>9}{statistics.median(values):>9.1f}"
              f"{percentile(values, 95):>9.1f}{max(values):>9.1f}")
    p95 = percentile(everything, 95)
    print(f"\np95 over all queries: {p95:.1f} ms (target < 50 ms): "
          f"{'met' if p95 < 50 else 'NOT met'}")
    configure(None)
    return 0 if p95 < 50 else 1


if __name__ == "__main__":
    sys.exit(main())
