"""The database tables (SQLAlchemy ORM): foods with their source and nutrients, servings, glycemic index, users,
meal entries. The Alembic migrations in db/migrations create exactly these tables (a test
compares them).
"""

import math
from datetime import datetime, timezone
from typing import Optional

from sqlalchemy import (
    CheckConstraint,
    ForeignKey,
    Index,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship, validates

from db.errors import InvalidValue
from db.glucose.units import UNITS as GLUCOSE_UNITS
from db.keys import name_key
from db.nutrition import DEFAULT_EXCHANGE_UNIT_G, DEFAULT_REGION, NUTRIENTS, REGIONS, STORED_NUTRIENTS

# Named constraints so later migrations (SQLite batch mode included) can address them.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

FDC_DATASETS: tuple[str, ...] = ("SR Legacy", "FNDDS", "Foundation")
# A public food summed from USDA rows (a sandwich with its bread), its ingredients listed.
COMPOSITE_DATASET = "Composite"
# A user's own food: from a label ("Own food") or summed from ingredients ("Recipe").
OWN_DATASETS: tuple[str, ...] = ("Own food", "Recipe")
NAME_MAX = 200  # SR Legacy long descriptions run to 197 characters

# New users' settings. 2000 kcal and 275 g carbohydrate are the reference intake behind the
# US Nutrition Facts "% Daily Value" (21 CFR 101.9): a neutral start, not advice; people set
# their own. The region (US) and its exchange unit (15 g choice) come from db.nutrition.
DEFAULT_KCAL_TARGET = 2000.0
DEFAULT_CARB_TARGET_G = 275.0
# Below it the app asks before logging. The shipped model's confidence is calibrated (about 70%
# of its answers at 70% are right): at 0.7 photos of dishes it does not know pass 5.0% of the
# time, where its uncalibrated softmax passed 6.4% at the old 0.5 (docs/experiments.md, 2026-12-04).
DEFAULT_CONFIDENCE_THRESHOLD = 0.7
# Until the person sets theirs: UTC, the zone servers usually run in.
DEFAULT_TIME_ZONE = "UTC"

# A meal entry's frozen values: finite, >= 0, and at most this (5 kg of table salt is 2e6 mg
# sodium), checked by the database too (migration 0002).
MEAL_VALUE_COLUMNS: tuple[str, ...] = (*NUTRIENTS, "glycemic_load")
MAX_MEAL_VALUE = 10_000_000


def utcnow() -> datetime:
    """Naive UTC: SQLite has no time zones, so every audit timestamp is stored as UTC."""
    return datetime.now(timezone.utc).replace(tzinfo=None)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class Food(Base):
    """One food or dish, with nutrients per 100 g copied from one USDA FoodData Central entry."""

    __tablename__ = "foods"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(NAME_MAX))
    name_key: Mapped[str] = mapped_column(String(NAME_MAX))
    category: Mapped[str] = mapped_column(String(60))  # SR Legacy food group for SR rows
    # Set for a user's own food or recipe: only that user sees, searches and logs it.
    owner_id: Mapped[Optional[int]] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), index=True
    )

    # Where the numbers come from: the FoodData Central ID and/or the dataset's own entry
    # (SR Legacy NDB number, FNDDS food code, CoFID food name, Swiss FCDB ID; db.datasets);
    # at least one of the two.
    # proxy_note is set when the entry is a stand-in (e.g. a similar dish) rather than the
    # dish itself, or says what to check (a product reformulated since it was analysed).
    fdc_dataset: Mapped[str] = mapped_column(String(20))
    fdc_id: Mapped[Optional[int]]
    source_code: Mapped[Optional[str]] = mapped_column(String(NAME_MAX))
    fdc_description: Mapped[str] = mapped_column(Text)
    proxy_note: Mapped[Optional[str]] = mapped_column(Text)
    # Why kcal is far from 4c + 4p + 9f (alcohol, polyols), when it is.
    energy_note: Mapped[Optional[str]] = mapped_column(Text)
    # USDA's common names (SR Legacy FOOD_DES ComName), searched like aliases.
    common_names: Mapped[Optional[str]] = mapped_column(Text)
    # How strongly search prefers this food when several match equally (db.search.prior).
    search_weight: Mapped[float] = mapped_column(default=0.0)
    # A recipe: how many servings the ingredients make (None for other foods).
    recipe_servings: Mapped[Optional[float]]
    # A recipe weighed after cooking: the dish's grams (its values per 100 g are of the cooked
    # dish); None: the ingredients' raw total stands for the dish.
    recipe_cooked_g: Mapped[Optional[float]]

    # Per 100 g, None where USDA has no value.
    kcal: Mapped[Optional[float]]
    carbohydrate_g: Mapped[Optional[float]]
    sugars_g: Mapped[Optional[float]]
    fiber_g: Mapped[Optional[float]]
    protein_g: Mapped[Optional[float]]
    fat_g: Mapped[Optional[float]]
    saturated_fat_g: Mapped[Optional[float]]
    sodium_mg: Mapped[Optional[float]]

    labels: Mapped[list["FoodLabel"]] = relationship(
        back_populates="food", cascade="all, delete-orphan", order_by="FoodLabel.label"
    )
    aliases: Mapped[list["FoodAlias"]] = relationship(
        back_populates="food", cascade="all, delete-orphan", order_by="FoodAlias.alias"
    )
    servings: Mapped[list["Serving"]] = relationship(
        back_populates="food", cascade="all, delete-orphan", order_by="Serving.id"
    )
    glycemic_index: Mapped[Optional["GlycemicIndex"]] = relationship(
        back_populates="food", cascade="all, delete-orphan"
    )
    ingredients: Mapped[list["RecipeIngredient"]] = relationship(
        cascade="all, delete-orphan", order_by="RecipeIngredient.position",
        foreign_keys="RecipeIngredient.recipe_id",
    )

    __table_args__ = (
        CheckConstraint(
            "fdc_dataset IN ('SR Legacy', 'FNDDS', 'Foundation', 'Composite', 'Own food', "
            "'Recipe', 'CoFID', 'Swiss FCDB')",
            name="fdc_dataset_v4",
        ),
        CheckConstraint("fdc_id IS NULL OR fdc_id > 0", name="fdc_id_positive"),
        CheckConstraint("recipe_cooked_g IS NULL OR recipe_cooked_g > 0",
                        name="recipe_cooked_positive"),
        # USDA rows name their source, composites list their USDA ingredients, own rows
        # belong to a user.
        CheckConstraint(
            "fdc_id IS NOT NULL OR source_code IS NOT NULL OR owner_id IS NOT NULL "
            "OR fdc_dataset = 'Composite'",
            name="source_or_owner",
        ),
        # Names are unique among public foods and within each user's own foods.
        Index("uq_foods_public_name", "name_key", unique=True,
              sqlite_where=text("owner_id IS NULL"), postgresql_where=text("owner_id IS NULL")),
        Index("uq_foods_owner_name", "owner_id", "name_key", unique=True),
    )

    @validates("name")
    def _set_name_key(self, _key: str, value: str) -> str:
        self.name_key = name_key(value)
        return value

    @property
    def per_100g(self) -> dict[str, Optional[float]]:
        return {name: getattr(self, name) for name in STORED_NUTRIENTS}

    @property
    def default_serving(self) -> Optional["Serving"]:
        return next((s for s in self.servings if s.is_default), None)


class RecipeIngredient(Base):
    """One ingredient of a user's recipe: ``grams`` of a food (public or the user's own)."""

    __tablename__ = "recipe_ingredients"

    id: Mapped[int] = mapped_column(primary_key=True)
    recipe_id: Mapped[int] = mapped_column(ForeignKey("foods.id", ondelete="CASCADE"), index=True)
    food_id: Mapped[int] = mapped_column(ForeignKey("foods.id", ondelete="RESTRICT"), index=True)
    position: Mapped[int]
    grams: Mapped[float]
    food_name: Mapped[str] = mapped_column(String(NAME_MAX))  # as named when added

    food: Mapped[Food] = relationship(foreign_keys=[food_id])

    __table_args__ = (CheckConstraint("grams > 0", name="grams_positive"),)


class FavouriteFood(Base):
    """A food the user starred: search lists it first, the Analyse tab one click away."""

    __tablename__ = "favourite_foods"

    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    food_id: Mapped[int] = mapped_column(
        ForeignKey("foods.id", ondelete="CASCADE"), primary_key=True
    )
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class SeedVersion(Base):
    """Which seed parts are loaded ("curated", "sr28"), so an upgraded database gets the
    parts it lacks on the next start without reloading the others."""

    __tablename__ = "seed_versions"

    part: Mapped[str] = mapped_column(String(40), primary_key=True)
    foods: Mapped[int]
    loaded_at: Mapped[datetime] = mapped_column(default=utcnow)


class FoodLabel(Base):
    """A model label (snake_case, from models.labels) that this food answers for."""

    __tablename__ = "food_labels"

    id: Mapped[int] = mapped_column(primary_key=True)
    food_id: Mapped[int] = mapped_column(ForeignKey("foods.id", ondelete="CASCADE"), index=True)
    label: Mapped[str] = mapped_column(String(80), unique=True)

    food: Mapped[Food] = relationship(back_populates="labels")


class FoodAlias(Base):
    """Another name people type for the food."""

    __tablename__ = "food_aliases"

    id: Mapped[int] = mapped_column(primary_key=True)
    food_id: Mapped[int] = mapped_column(ForeignKey("foods.id", ondelete="CASCADE"), index=True)
    alias: Mapped[str] = mapped_column(String(120))
    alias_key: Mapped[str] = mapped_column(String(120), unique=True)

    food: Mapped[Food] = relationship(back_populates="aliases")

    @validates("alias")
    def _set_alias_key(self, _key: str, value: str) -> str:
        self.alias_key = name_key(value)
        return value


class Serving(Base):
    """A named portion in grams; each food has exactly one default serving."""

    __tablename__ = "servings"

    id: Mapped[int] = mapped_column(primary_key=True)
    food_id: Mapped[int] = mapped_column(ForeignKey("foods.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(80))
    grams: Mapped[float]
    is_default: Mapped[bool] = mapped_column(default=False)
    source: Mapped[str] = mapped_column(Text)

    food: Mapped[Food] = relationship(back_populates="servings")

    __table_args__ = (
        UniqueConstraint("food_id", "name"),
        CheckConstraint("grams > 0", name="grams_positive"),
        # At most one default per food, enforced by the database (the seed loader checks
        # "at least one").
        Index(
            "uq_servings_default_per_food",
            "food_id",
            unique=True,
            sqlite_where=text("is_default = 1"),
            postgresql_where=text("is_default"),
        ),
    )


class GlycemicIndex(Base):
    """A published GI (glucose = 100) and the table entry it comes from. No row = no GI."""

    __tablename__ = "glycemic_index"

    food_id: Mapped[int] = mapped_column(
        ForeignKey("foods.id", ondelete="CASCADE"), primary_key=True
    )
    gi: Mapped[int]
    reference: Mapped[str] = mapped_column(String(20))
    gi_source: Mapped[str] = mapped_column(Text)

    food: Mapped[Food] = relationship(back_populates="glycemic_index")

    __table_args__ = (CheckConstraint("gi >= 0 AND gi <= 150", name="gi_range"),)


class User(Base):
    """A person who logs meals, with their settings. No password = a local, trusted user."""

    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    name_key: Mapped[str] = mapped_column(String(64), unique=True)
    password_hash: Mapped[Optional[str]] = mapped_column(String(255))  # argon2id
    daily_kcal_target: Mapped[float] = mapped_column(default=DEFAULT_KCAL_TARGET)
    daily_carb_target_g: Mapped[float] = mapped_column(default=DEFAULT_CARB_TARGET_G)
    exchange_unit_g: Mapped[float] = mapped_column(default=DEFAULT_EXCHANGE_UNIT_G)
    # Where the person counts carbohydrate (db.nutrition.REGIONS): their unit's default and
    # the vocabulary search prefers.
    region: Mapped[str] = mapped_column(String(2), default=DEFAULT_REGION,
                                        server_default=DEFAULT_REGION)
    confidence_threshold: Mapped[float] = mapped_column(default=DEFAULT_CONFIDENCE_THRESHOLD)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # Admins change the server's default model; everyone may pick their own (`model`, a
    # model name as the app lists it; None: the server's default).
    is_admin: Mapped[bool] = mapped_column(default=False, server_default=false())
    model: Mapped[Optional[str]] = mapped_column(String(200))
    # Consent to keep the photos of logged meals (db.photos), off until the person turns it on.
    keep_photos: Mapped[bool] = mapped_column(default=False, server_default=false())
    # The person's IANA time zone (db.glucose.zones): glucose exports whose timestamps carry
    # no zone are read in it, and meals (local wall-clock) are placed on the glucose curve by it.
    time_zone: Mapped[str] = mapped_column(String(64), default=DEFAULT_TIME_ZONE,
                                           server_default=DEFAULT_TIME_ZONE)
    # The unit glucose is shown in (db.glucose.units); None: their region's.
    glucose_unit: Mapped[Optional[str]] = mapped_column(String(6))

    meals: Mapped[list["MealEntry"]] = relationship(
        back_populates="user", cascade="all, delete-orphan", passive_deletes=True
    )

    __table_args__ = (
        CheckConstraint("exchange_unit_g IN (10, 12, 15)", name="exchange_unit"),
        CheckConstraint("region IN (" + ", ".join(f"'{code}'" for code in REGIONS) + ")",
                        name="region"),
        CheckConstraint("glucose_unit IS NULL OR glucose_unit IN ("
                        + ", ".join(f"'{unit}'" for unit in GLUCOSE_UNITS) + ")", name="glucose_unit"),
        CheckConstraint(
            "confidence_threshold >= 0 AND confidence_threshold <= 1", name="confidence_threshold"
        ),
    )

    @validates("name")
    def _set_name_key(self, _key: str, value: str) -> str:
        self.name_key = name_key(value)
        return value


class MealEntry(Base):
    """One thing a user ate. The nutrient values are those of the portion, computed when it
    was logged and stored here, so correcting a food's data later never rewrites history.
    """

    __tablename__ = "meal_entries"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    # The eater's local wall-clock time (naive): a diary is read by local day.
    eaten_at: Mapped[datetime]
    food_id: Mapped[int] = mapped_column(ForeignKey("foods.id", ondelete="RESTRICT"), index=True)
    food_name: Mapped[str] = mapped_column(String(NAME_MAX))  # as named when logged
    grams: Mapped[float]
    serving: Mapped[Optional[str]] = mapped_column(String(80))
    meal_type: Mapped[str] = mapped_column(String(40), default="")
    note: Mapped[str] = mapped_column(Text, default="")

    # For the portion eaten, frozen at logging time.
    kcal: Mapped[Optional[float]]
    carbohydrate_g: Mapped[Optional[float]]
    available_carbohydrate_g: Mapped[Optional[float]]
    sugars_g: Mapped[Optional[float]]
    fiber_g: Mapped[Optional[float]]
    protein_g: Mapped[Optional[float]]
    fat_g: Mapped[Optional[float]]
    saturated_fat_g: Mapped[Optional[float]]
    sodium_mg: Mapped[Optional[float]]
    glycemic_load: Mapped[Optional[float]]

    # Set when the entry came from a photo.
    predicted_label: Mapped[Optional[str]] = mapped_column(String(80))
    confidence: Mapped[Optional[float]]
    model_version: Mapped[Optional[str]] = mapped_column(String(200))
    # The photo's SHA-256, and whether the person chose another food than the model's top
    # prediction: (photo, predicted_label, food) is then a correction to train on.
    photo_sha256: Mapped[Optional[str]] = mapped_column(String(64))
    is_correction: Mapped[Optional[bool]]

    # The caller's id for the entry: importing the same entry twice is a no-op.
    external_id: Mapped[Optional[str]] = mapped_column(String(200))
    # The person keeps the meal of this entry in their per-food glucose figures although it is
    # flagged (another meal, a correction bolus, missing data: db.glucose.metrics.per_food).
    keep_in_food_figures: Mapped[bool] = mapped_column(default=False, server_default=false())
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)

    user: Mapped[User] = relationship(back_populates="meals")
    food: Mapped[Food] = relationship()

    __table_args__ = (
        UniqueConstraint("user_id", "external_id"),
        Index("ix_meal_entries_user_eaten", "user_id", "eaten_at"),
        CheckConstraint("grams > 0", name="grams_positive"),
        CheckConstraint("confidence IS NULL OR (confidence >= 0 AND confidence <= 1)",
                        name="confidence_range"),
        *(CheckConstraint(f"{c} IS NULL OR ({c} >= 0 AND {c} <= {MAX_MEAL_VALUE})", name=f"{c}_range")
          for c in MEAL_VALUE_COLUMNS),
    )

    @validates(*MEAL_VALUE_COLUMNS)
    def _finite(self, key: str, value: Optional[float]) -> Optional[float]:
        # The last guard before SQLite, which would store NaN as NULL and so drop the meal
        # from the day's totals without a word.
        if value is not None and not math.isfinite(value):
            raise InvalidValue(f"{key} must be a finite number, got {value!r}")
        return value


GLUCOSE_KINDS: tuple[str, ...] = ("cgm", "scan", "meter")
GLUCOSE_SOURCES: tuple[str, ...] = ("clarity", "libreview", "nightscout", "csv")
# Outside this no sensor or meter reports a number (they say "Low" / "High" instead).
GLUCOSE_MG_DL_RANGE = (10.0, 1000.0)


class GlucoseReading(Base):
    """One glucose value of a user's, from a CGM (``cgm``: the sensor's regular readings;
    ``scan``: a Libre scan on demand) or a fingerstick ``meter``, as imported from ``source``.
    ``measured_at`` is UTC (naive), whatever zone the export was written in. A value the device
    reported only as "Low" or "High" is stored at the device's limit with ``reported_as`` set."""

    __tablename__ = "glucose_readings"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    measured_at: Mapped[datetime]
    mg_dl: Mapped[float]
    kind: Mapped[str] = mapped_column(String(5))
    source: Mapped[str] = mapped_column(String(12))
    reported_as: Mapped[Optional[str]] = mapped_column(String(4))

    __table_args__ = (
        # Importing the same export twice adds nothing.
        UniqueConstraint("user_id", "source", "kind", "measured_at"),
        Index("ix_glucose_readings_user_time", "user_id", "measured_at"),
        CheckConstraint(f"mg_dl >= {GLUCOSE_MG_DL_RANGE[0]} AND mg_dl <= {GLUCOSE_MG_DL_RANGE[1]}",
                        name="mg_dl_range"),
        CheckConstraint("kind IN (" + ", ".join(f"'{k}'" for k in GLUCOSE_KINDS) + ")", name="kind"),
        CheckConstraint("source IN (" + ", ".join(f"'{k}'" for k in GLUCOSE_SOURCES) + ")",
                        name="source"),
        CheckConstraint("reported_as IS NULL OR reported_as IN ('Low', 'High')", name="reported_as"),
    )


# Insulin (units) and carbohydrate (grams) the person's devices recorded, imported beside the
# readings: shown on the curve, never used to suggest a dose.
GLUCOSE_EVENT_KINDS: tuple[str, ...] = ("bolus", "basal", "carbs")
MAX_INSULIN_UNITS = 100.0
MAX_CARBS_G = 1000.0


class GlucoseEvent(Base):
    """One insulin dose (``bolus``: rapid-acting; ``basal``: long-acting, in units) or one
    carbohydrate entry (``carbs``, grams) from a glucose export; ``at`` is UTC (naive)."""

    __tablename__ = "glucose_events"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    at: Mapped[datetime]
    kind: Mapped[str] = mapped_column(String(5))
    amount: Mapped[float]
    source: Mapped[str] = mapped_column(String(12))

    __table_args__ = (
        UniqueConstraint("user_id", "source", "kind", "at"),  # a re-import adds nothing
        Index("ix_glucose_events_user_time", "user_id", "at"),
        CheckConstraint("kind IN (" + ", ".join(f"'{k}'" for k in GLUCOSE_EVENT_KINDS) + ")", name="kind"),
        CheckConstraint(f"amount > 0 AND (amount <= {MAX_INSULIN_UNITS} OR (kind = 'carbs' AND amount <= {MAX_CARBS_G}))",
                        name="amount_range"),
        CheckConstraint("source IN (" + ", ".join(f"'{k}'" for k in GLUCOSE_SOURCES) + ")", name="source"),
    )


class ModelChange(Base):
    """Who changed which model when: the server's default (admins) or their own (scope user)."""

    __tablename__ = "model_changes"

    id: Mapped[int] = mapped_column(primary_key=True)
    changed_at: Mapped[datetime] = mapped_column(default=utcnow)
    changed_by: Mapped[str] = mapped_column(String(64))  # the user's name at the time
    scope: Mapped[str] = mapped_column(String(10))
    from_model: Mapped[Optional[str]] = mapped_column(String(200))
    to_model: Mapped[Optional[str]] = mapped_column(String(200))  # None: back to the default

    __table_args__ = (CheckConstraint("scope IN ('server', 'user')", name="scope"),)


# --- State every app process shares (migration 0004) -----------------------------------------
# Several app processes behind a load balancer behave as one because what a request may
# depend on lives here, not in a process: who is signed in, the server's default model, and
# who may download which generated file.

SESSION_TOKEN_HASH_LEN = 64  # hex SHA-256
FILE_MARKER_LEN = 32  # hex, see app.security.OwnedFiles
SIGN_IN_KEY_HASH_LEN = 64  # hex SHA-256 of 'user:<name>' or 'client:<address>'


class SignInSession(Base):
    """A signed-in browser or API client. Only the SHA-256 of its cookie token is stored, so
    a leaked database copy signs nobody in. It ends ``idle`` after ``last_seen_at`` (the app's
    setting) and at ``expires_at`` however active; signing out deletes the row."""

    __tablename__ = "sign_in_sessions"

    id: Mapped[int] = mapped_column(primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(SESSION_TOKEN_HASH_LEN), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # Written at most every few seconds to a minute per session (db.signins.touch_interval_s).
    last_seen_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(index=True)

    user: Mapped[User] = relationship()

    __table_args__ = (CheckConstraint("expires_at > created_at", name="expires_after_created"),)


class ServerSetting(Base):
    """A server-wide choice every app process follows, e.g. the default model (by name, as the
    app lists it: only installed models can be named)."""

    __tablename__ = "server_settings"

    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    value: Mapped[str] = mapped_column(String(200))
    changed_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)
    changed_by: Mapped[str] = mapped_column(String(64))  # the user's name at the time

    __table_args__ = (CheckConstraint("name IN ('default_model')", name="known_name"),)


class OwnedFile(Base):
    """A generated download (CSV export, batch result) and the one user who may fetch it, by
    the random marker in its file name."""

    __tablename__ = "owned_files"

    marker: Mapped[str] = mapped_column(String(FILE_MARKER_LEN), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class SignInFailure(Base):
    """Wrong passwords in a row for one user name or from one client address, counted here so
    that every app process delays the same guesser (app.security.Throttle). The key is a
    SHA-256, so the table holds no typed user names (people type passwords into that field).
    A successful sign-in deletes the row; db.signins forgets rows a day after their last failure."""

    __tablename__ = "sign_in_failures"

    key_hash: Mapped[str] = mapped_column(String(SIGN_IN_KEY_HASH_LEN), primary_key=True)
    failures: Mapped[int]
    last_failed_at: Mapped[datetime] = mapped_column(index=True)

    __table_args__ = (CheckConstraint("failures >= 1", name="failures_positive"),)


# --- Kept photos and households (migration 0010) ---------------------------------------------

PHOTO_TOKEN_LEN = 32  # hex: the random file name of a kept photo
INVITE_HASH_LEN = 64  # hex SHA-256 of an invite code


class Household(Base):
    """People who share their kept photos, so a dish one of them logs is learned for all."""

    __tablename__ = "households"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class HouseholdMember(Base):
    """A user in a household (at most one each), joined with an invite code a member made
    (db.households): the members' kept photos reach each other's recognition."""

    __tablename__ = "household_members"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    household_id: Mapped[int] = mapped_column(ForeignKey("households.id", ondelete="CASCADE"), index=True)
    joined_at: Mapped[datetime] = mapped_column(default=utcnow)


class HouseholdInvite(Base):
    """A one-time code a member made for someone to join their household. Only its SHA-256
    is stored (like sign-in tokens); it ends at ``expires_at`` or when used."""

    __tablename__ = "household_invites"

    code_hash: Mapped[str] = mapped_column(String(INVITE_HASH_LEN), primary_key=True)
    household_id: Mapped[int] = mapped_column(ForeignKey("households.id", ondelete="CASCADE"), index=True)
    created_by: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime]


class KeptPhoto(Base):
    """A meal photo kept with its owner's consent (User.keep_photos): the file is
    ``<token>.jpg`` in db.photos.folder(), downscaled and without metadata. ``food_name`` is
    the food the person logged; ``labelled`` says they chose it over the model's answer (a
    correction: a label), else it is the model's answer accepted (a pseudo-label)."""

    __tablename__ = "kept_photos"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    entry_id: Mapped[Optional[int]] = mapped_column(
        ForeignKey("meal_entries.id", ondelete="CASCADE"), index=True
    )
    token: Mapped[str] = mapped_column(String(PHOTO_TOKEN_LEN), unique=True)
    food_name: Mapped[str] = mapped_column(String(NAME_MAX))
    labelled: Mapped[bool]
    sha256: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


# --- Personal dishes (migration 0013_personal_dishes) -----------------------------------------
# A dish a person taught the app from their own photos: recognised by the embeddings of those
# photos (models.dishes), without training a network. Only vectors are stored, never the photos.

DISH_SPACE_LEN = 64  # the model version whose embeddings these are (models.engine.Engine.embedding_space)


class PersonalDish(Base):
    """A dish of one user: a name of their choice and the food (public or their own recipe)
    whose nutrition card it gets."""

    __tablename__ = "personal_dishes"

    id: Mapped[int] = mapped_column(primary_key=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(NAME_MAX))
    name_key: Mapped[str] = mapped_column(String(NAME_MAX))
    # Deleting the user's own recipe deletes the dish that stood for it.
    food_id: Mapped[int] = mapped_column(ForeignKey("foods.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    food: Mapped[Food] = relationship()
    examples: Mapped[list["DishExample"]] = relationship(
        back_populates="dish", cascade="all, delete-orphan", passive_deletes=True,
        order_by="DishExample.id",
    )

    __table_args__ = (UniqueConstraint("owner_id", "name_key"),)

    @validates("name")
    def _set_name_key(self, _key: str, value: str) -> str:
        self.name_key = name_key(value)
        return value


class DishExample(Base):
    """One photo of a dish, as the float32 embeddings (``views`` x ``dim``) of its augmented
    views under one model (``space``): vectors of another model are not comparable."""

    __tablename__ = "dish_examples"

    id: Mapped[int] = mapped_column(primary_key=True)
    dish_id: Mapped[int] = mapped_column(ForeignKey("personal_dishes.id", ondelete="CASCADE"), index=True)
    space: Mapped[str] = mapped_column(String(DISH_SPACE_LEN))
    views: Mapped[int]
    dim: Mapped[int]
    vectors: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    dish: Mapped[PersonalDish] = relationship(back_populates="examples")

    __table_args__ = (
        CheckConstraint("views >= 1 AND views <= 64", name="views_range"),
        CheckConstraint("dim >= 1 AND dim <= 8192", name="dim_range"),
    )
