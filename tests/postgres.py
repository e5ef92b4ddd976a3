"""A throwaway PostgreSQL server for the tests: ``initdb`` into a temporary folder, ``pg_ctl``
start on a free port of 127.0.0.1 (its unix socket inside that folder, so it never meets a
system server's), stopped and deleted afterwards.

The binaries come from PATH or from Debian's /usr/lib/postgresql/<version>/bin (the
``postgresql`` package does not put them on PATH). PostgreSQL refuses to run as root, so under
root the server runs as the ``postgres`` user (made by Debian's package) or else ``nobody``,
owning the temporary folder; the tests still connect as the database superuser ``foodtag``
over TCP with trust authentication (the server listens on loopback only, for one test run).

Used through fixtures: in conftest.py ``postgres_server`` (this module's server, one per test
session), ``postgres_url`` (a new empty database per test) and ``postgres_template`` (the name
of a database on the small test seed, to copy); in db_support.py ``db_url`` and
``empty_db_url`` (a test using either runs on SQLite and on PostgreSQL).
``PostgresServer.create_database(template=...)`` gives a test its own database, copied from a
template database when one is named (CREATE DATABASE ... TEMPLATE: a fraction of a second).
"""

from __future__ import annotations

import itertools
import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SUPERUSER = "foodtag"
# Durability is pointless for a database deleted after the run, and fsyncs are most of the
# cost of CREATE DATABASE and of every commit.
_FAST_SETTINGS = {
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "max_connections": "200",
}
_BINARIES = ("initdb", "pg_ctl", "postgres")


def find_bin_dir() -> Path | None:
    """The folder holding initdb, pg_ctl and postgres: from PATH, else the newest
    /usr/lib/postgresql/<version>/bin; None when there is none."""
    on_path = shutil.which("pg_ctl")
    if on_path and all(shutil.which(name) for name in _BINARIES):
        return Path(on_path).resolve().parent
    versions = []
    for folder in Path("/usr/lib/postgresql").glob("*/bin"):
        if all((folder / name).is_file() for name in _BINARIES) and folder.parent.name.isdigit():
            versions.append((int(folder.parent.name), folder))
    return max(versions)[1] if versions else None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _unprivileged_user() -> pwd.struct_passwd:
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise RuntimeError("running as root, and there is neither a 'postgres' nor a 'nobody' "
                       "user to run PostgreSQL as (initdb refuses root)")


@dataclass
class PostgresServer:
    """One running server; ``start()`` makes it, ``stop()`` removes it and its files."""

    bin_dir: Path
    folder: Path = field(init=False)
    port: int = field(init=False, default=0)
    _names: Any = field(init=False, default_factory=lambda: itertools.count(1))
    _run_as: dict[str, Any] = field(init=False, default_factory=dict)

    def start(self) -> PostgresServer:
        self.folder = Path(tempfile.mkdtemp(prefix="foodtag-pg-"))
        if os.geteuid() == 0:
            user = _unprivileged_user()
            os.chown(self.folder, user.pw_uid, user.pw_gid)
            self._run_as = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
        (self.folder / "socket").mkdir()
        if self._run_as:
            os.chown(self.folder / "socket", self._run_as["user"], self._run_as["group"])
        self._pg("initdb", "--pgdata", str(self.data), "--username", SUPERUSER,
                 "--auth", "trust", "--encoding", "UTF8", "--locale", "C", "--no-sync")
        settings = dict(_FAST_SETTINGS, listen_addresses="'127.0.0.1'",
                        unix_socket_directories=f"'{self.folder / 'socket'}'")
        with (self.data / "postgresql.conf").open("a", encoding="utf-8") as conf:
            conf.writelines(f"{key} = {value}\n" for key, value in settings.items())
        # The port is free when picked but may be taken before the server binds it: retry.
        for attempt in range(3):
            self.port = _free_port()
            try:
                self._pg("pg_ctl", "start", "--pgdata", str(self.data), "--wait",
                         "--timeout", "60", "--log", str(self.log),
                         "-o", f"-p {self.port}")
                return self
            except RuntimeError:
                if attempt == 2 or "could not bind" not in self._log_tail():
                    raise
        raise AssertionError("unreachable")

    def stop(self) -> None:
        try:
            if (self.data / "postmaster.pid").exists():
                self._pg("pg_ctl", "stop", "--pgdata", str(self.data), "--mode", "fast",
                         "--wait")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)

    @property
    def data(self) -> Path:
        return self.folder / "data"

    @property
    def log(self) -> Path:
        return self.folder / "server.log"

    def url(self, database: str = "postgres") -> str:
        """SQLAlchemy URL of ``database`` on this server (driver: psycopg 3)."""
        return f"postgresql+psycopg://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def create_database(self, template: str | None = None, name: str | None = None) -> str:
        """A new database (a copy of ``template`` when given, which then must have no open
        connections); returns its URL."""
        name = name or f"test_{next(self._names)}"
        _check_identifier(name)
        sql = f'CREATE DATABASE "{name}"'
        if template is not None:
            _check_identifier(template)
            sql += f' TEMPLATE "{template}"'
        self.execute(sql)
        return self.url(name)

    def drop_database(self, name: str) -> None:
        """Drop ``name``, ending any connection still open to it."""
        _check_identifier(name)
        self.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def execute(self, sql: str) -> None:
        """One statement on the maintenance database, outside a transaction."""
        import psycopg

        with psycopg.connect(host="127.0.0.1", port=self.port, user=SUPERUSER,
                             dbname="postgres", autocommit=True) as conn:
            conn.execute(sql)

    def _pg(self, program: str, *args: str) -> None:
        result = subprocess.run([str(self.bin_dir / program), *args], cwd=self.folder,
                                capture_output=True, text=True, timeout=120, **self._run_as)
        if result.returncode != 0:
            raise RuntimeError(f"{program} failed ({result.returncode}): "
                               f"{result.stderr.strip() or result.stdout.strip()}\n"
                               f"server log: {self._log_tail()}")

    def _log_tail(self) -> str:
        try:
            return self.log.read_text(encoding="utf-8", errors="replace")[-2000:]
        except OSError:
            return "(none)"


def _check_identifier(name: str) -> None:
    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", name):
        raise ValueError(f"not a plain database name: {name!r}")
