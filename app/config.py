"""How the web app is configured: one dataclass, filled from flags and environment variables."""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass, field
from pathlib import Path

from db.nutrition import DEFAULT_REGION, REGIONS
from models.errors import FoodtagError

# The name every meal is logged under when the app runs without sign-in (the default).
LOCAL_USER = "local"


class ConfigError(FoodtagError):
    """The app cannot start with these settings."""


def is_loopback(host: str) -> bool:
    """True when only this machine can reach `host` ("localhost", 127.0.0.0/8, ::1)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        # A host name other than localhost may resolve to any interface: treat it as public.
        return False


@dataclass
class AppConfig:
    host: str = "127.0.0.1"
    port: int = 7860
    # Extra ONNX files offered in the Models tab; the first one is active at start.
    # Without any, the project's default model is active.
    models: list[Path] = field(default_factory=list)
    db_url: str | None = None  # None: FOODTAG_DB_URL, else SQLite in data_home()
    # Sign-in with per-user logs. Off: one local user, no sign-in (loopback only).
    accounts: bool = False
    # Largest photo accepted by the UI upload and by POST /api/analyze. Phone photos are
    # 2-8 MB; a 20 MB cap leaves room for 50 MP JPEGs without letting clients fill memory.
    max_upload_mb: float = 20.0
    # Concurrent Gradio events per handler. Inference is CPU-bound and ONNX Runtime already
    # uses every core for one image, so more parallel runs only add latency.
    concurrency: int = 2
    # Sign-in sessions end after this long without a request (and after 12 hours in all).
    session_idle_minutes: float = 30.0
    # How often each process reads the default model an admin stored in the database: a
    # change made on one process is served by all of them within this (plus the model's load).
    model_poll_seconds: float = 5.0
    # Where the local user counts carbohydrate (US, UK, DE), set when the app first starts
    # and creates them: their exchange unit and the food names search prefers. Changeable in
    # Settings afterwards; account users choose theirs at sign-up (`users add --region`).
    region: str = DEFAULT_REGION
    # Where meal photos are kept for the users who consent (db.photos). None: FOODTAG_PHOTOS_DIR,
    # else FOODTAG_HOME/photos. Several app processes on one database need one shared folder.
    photos_dir: Path | None = None

    def __post_init__(self) -> None:
        self.models = [Path(p).expanduser() for p in self.models]
        self.photos_dir = None if self.photos_dir is None else Path(self.photos_dir).expanduser()
        if not 0 <= self.port <= 65535:
            raise ConfigError(f"port must be 0-65535, got {self.port}")
        if not 0 < self.max_upload_mb <= 200:
            raise ConfigError(f"max upload size must be in (0, 200] MB, got {self.max_upload_mb}")
        if not 1 <= self.session_idle_minutes <= 7 * 24 * 60:
            raise ConfigError(f"session idle time must be 1 minute to 7 days, got {self.session_idle_minutes} minutes")
        if not 0.1 <= self.model_poll_seconds <= 3600:
            raise ConfigError(f"model poll interval must be 0.1 s to 1 hour, got {self.model_poll_seconds} s")
        if self.region not in REGIONS:
            raise ConfigError(f"region must be one of {', '.join(REGIONS)}, got {self.region!r}")
        if self.concurrency < 1:
            raise ConfigError(f"concurrency must be at least 1, got {self.concurrency}")
        for path in self.models:
            if path.suffix.lower() != ".onnx" or not path.is_file():
                raise ConfigError(f"--model {path}: not an existing .onnx file")
        if not self.accounts and not is_loopback(self.host):
            raise ConfigError(
                f"refusing to listen on {self.host} without accounts: anyone on the network could "
                "read and change the meal log. Add users with `python -m app users add NAME` "
                "and start with --accounts, or bind to 127.0.0.1."
            )

    @property
    def allowed_hosts(self) -> set[str]:
        """Host names single-user mode answers to: this machine's, and the one it listens on."""
        return {"127.0.0.1", "localhost", "::1", self.host.strip("[]").lower()}

    @property
    def max_upload_bytes(self) -> int:
        return int(self.max_upload_mb * 1024 * 1024)

    @classmethod
    def from_env(cls, **overrides) -> "AppConfig":
        """Defaults < FOODTAG_* environment variables < explicit overrides (flags)."""
        env = os.environ
        values: dict = {}
        if env.get("FOODTAG_HOST"):
            values["host"] = env["FOODTAG_HOST"]
        if env.get("FOODTAG_PORT"):
            try:
                values["port"] = int(env["FOODTAG_PORT"])
            except ValueError:
                raise ConfigError(f"FOODTAG_PORT must be an integer, got {env['FOODTAG_PORT']!r}") from None
        if env.get("FOODTAG_MODEL"):
            values["models"] = [Path(env["FOODTAG_MODEL"])]
        if env.get("FOODTAG_SESSION_IDLE_MINUTES"):
            try:
                values["session_idle_minutes"] = float(env["FOODTAG_SESSION_IDLE_MINUTES"])
            except ValueError:
                raise ConfigError("FOODTAG_SESSION_IDLE_MINUTES must be a number of minutes") from None
        if env.get("FOODTAG_MODEL_POLL_SECONDS"):
            try:
                values["model_poll_seconds"] = float(env["FOODTAG_MODEL_POLL_SECONDS"])
            except ValueError:
                raise ConfigError("FOODTAG_MODEL_POLL_SECONDS must be a number of seconds") from None
        if env.get("FOODTAG_REGION"):
            values["region"] = env["FOODTAG_REGION"].strip().upper()
        if env.get("FOODTAG_ACCOUNTS"):
            values["accounts"] = env["FOODTAG_ACCOUNTS"].strip().lower() in ("1", "true", "yes", "on")
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)
