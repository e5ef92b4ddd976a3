"""Every line of process-group code lives here: init/destroy, wrap/unwrap, reductions, ZeRO.

Launch with torchrun (it sets RANK, WORLD_SIZE, LOCAL_RANK); a plain `python -m distill`
runs as a single process with no process group. Under SageMaker data parallel the
launcher starts the processes and `backend=smddp` initialises through its package.
The rest of the trainer asks `is_main()` before writing or printing anything.
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass
from datetime import timedelta

import torch
import torch.distributed as tdist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

from distill.errors import DistillError


@dataclass(frozen=True)
class DistEnv:
    rank: int = 0
    world_size: int = 1
    local_rank: int = 0
    device: torch.device = torch.device("cpu")
    backend: str | None = None  # None: single process, no process group

    @property
    def is_main(self) -> bool:
        return self.rank == 0


_env = DistEnv()
# torchrun's store (``_restart_safe_store``), which outlives the process group: where the ranks
# say they have left it (``destroy``).
_store: tdist.Store | None = None
_partings = 0
PARTING_WAIT_S = 30.0


def env() -> DistEnv:
    return _env


def is_main() -> bool:
    return _env.rank == 0


def _local_rank() -> int:
    for name in ("LOCAL_RANK", "SMDATAPARALLEL_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK"):
        if name in os.environ:
            return int(os.environ[name])
    return 0


def init(device: str = "auto", backend: str = "auto", timeout_s: float = 300) -> DistEnv:
    """Pick the device, and join the process group when launched by torchrun or SageMaker.

    timeout_s bounds every collective: when a peer process or node stops, the others fail
    with an error after at most that long instead of waiting forever (gloo notices a closed
    connection at once; the timeout covers a peer that hangs without closing it).
    """
    global _env
    if device == "cuda" and not torch.cuda.is_available():
        raise DistillError("device: cuda was asked for but no CUDA device is available")
    use_cuda = device == "cuda" or (device == "auto" and torch.cuda.is_available())
    launched = "RANK" in os.environ or backend == "smddp"
    if not launched:
        _env = DistEnv(device=torch.device("cuda" if use_cuda else "cpu"))
        return _env
    if backend == "smddp":
        try:  # importing registers the "smddp" backend with torch.distributed
            import smdistributed.dataparallel.torch.torch_smddp  # noqa: F401
        except ImportError:
            raise DistillError("backend: smddp needs SageMaker's smdistributed.dataparallel package, "
                               "which is not installed here; use --backend auto") from None
    elif backend == "auto":
        backend = "nccl" if use_cuda else "gloo"
    if backend in ("nccl", "smddp") and not use_cuda:
        raise DistillError(f"backend: {backend} needs CUDA devices; use --backend gloo on CPU")
    local_rank = _local_rank()
    if use_cuda:
        torch.cuda.set_device(local_rank)
    timeout = timedelta(seconds=timeout_s)
    global _store
    store = _restart_safe_store(timeout)
    _store = store.get("store")
    tdist.init_process_group(backend=backend, timeout=timeout, **store)
    _env = DistEnv(rank=tdist.get_rank(), world_size=tdist.get_world_size(), local_rank=local_rank,
                   device=torch.device("cuda", local_rank) if use_cuda else torch.device("cpu"),
                   backend=backend)
    return _env


def _restart_safe_store(timeout: timedelta) -> dict:
    """Under torchrun, the process group's store, with keys kept apart per restart.

    torchrun's c10d rendezvous shares one TCPStore across restarts of the worker group and the
    env:// init writes the same keys into it each time, so a restarted rank can read a dead
    rank's gloo address and fail with "Connection refused". A prefix per restart avoids that.
    """
    if os.environ.get("TORCHELASTIC_USE_AGENT_STORE") != "True":
        return {}  # env:// (a plain launcher, SageMaker's smddp) creates its own store
    store = tdist.TCPStore(os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]), is_master=False,
                           timeout=timeout)
    attempt = os.environ.get("TORCHELASTIC_RESTART_COUNT", "0")
    return {"store": tdist.PrefixStore(f"foodtag/attempt_{attempt}", store),
            "rank": int(os.environ["RANK"]), "world_size": int(os.environ["WORLD_SIZE"])}


def is_lost_peer(exc: BaseException) -> bool:
    """Did a collective fail because another process stopped, hung or lost the network?

    NCCL and the c10d store raise torch.distributed.DistError; gloo raises a plain RuntimeError
    whose message names its transport (its only public sign).
    """
    if _env.backend is None:
        return False
    return isinstance(exc, tdist.DistError) or (isinstance(exc, RuntimeError) and "gloo" in str(exc))


def destroy(finished: bool = False) -> None:
    """Leave the process group. finished: this rank's run ended normally (no exception).

    After the last collective the ranks part at different times (rank 0 still writes the checkpoint),
    and a rank that tore down gloo and exited while its peer was still tearing down made that peer
    abort at exit ("terminate called without an active exception"). So a finished rank first waits
    at a barrier for the others. Never on failure: the peer may be gone or stuck, and a barrier there
    would wait out the timeout. A barrier that fails (a peer failed after all) only skips the wait.
    Under torchrun a finished rank then also waits, on torchrun's store, until every rank has torn
    its group down: the barrier alone still let one exit while its peer tore down (CI, 2026-12-07).
    """
    global _env, _store, _partings
    if tdist.is_available() and tdist.is_initialized():
        if finished:
            with contextlib.suppress(RuntimeError):  # DistError is a RuntimeError too
                barrier()
        tdist.destroy_process_group()
        if finished and _store is not None:
            _partings += 1  # every rank leaves each group it joins: the same count on each
            _wait_for_all_parted(_store, f"parted_{_partings}", _env.world_size)
    _store = None
    _env = DistEnv(device=_env.device)


def _wait_for_all_parted(store: tdist.Store, key: str, world_size: int) -> None:
    """Count this rank as parted and wait (at most PARTING_WAIT_S) until all have: a store that
    fails (the agent is going) only ends the wait."""
    deadline = time.monotonic() + PARTING_WAIT_S
    with contextlib.suppress(RuntimeError):
        parted = store.add(key, 1)
        while parted < world_size and time.monotonic() < deadline:
            time.sleep(0.01)
            parted = store.add(key, 0)


def wrap(model: nn.Module) -> nn.Module:
    """DDP-wrap the student only (the teacher is frozen and never wrapped)."""
    if _env.backend is None:
        return model
    device_ids = [_env.local_rank] if _env.device.type == "cuda" else None
    return DistributedDataParallel(model, device_ids=device_ids)


def unwrap(model: nn.Module) -> nn.Module:
    """The plain module under DDP and torch.compile wrappers (what checkpoints hold)."""
    while True:
        if isinstance(model, DistributedDataParallel):
            model = model.module
        elif hasattr(model, "_orig_mod"):
            model = model._orig_mod
        else:
            return model


def grad_sync(model: nn.Module, enabled: bool):
    """Skip DDP's gradient all-reduce on accumulation micro-steps; only the last one syncs."""
    if enabled or not isinstance(model, DistributedDataParallel):
        return contextlib.nullcontext()
    return model.no_sync()


def all_reduce_sum(tensor: torch.Tensor) -> torch.Tensor:
    if _env.backend is not None:
        tdist.all_reduce(tensor, op=tdist.ReduceOp.SUM)
    return tensor


def all_gather_object(obj) -> list:
    if _env.backend is None:
        return [obj]
    out = [None] * _env.world_size
    tdist.all_gather_object(out, obj)
    return out


def broadcast_object(obj):
    """Rank 0's value on every rank (e.g. the run folder name, which has a timestamp)."""
    if _env.backend is None:
        return obj
    box = [obj]
    tdist.broadcast_object_list(box, src=0)
    return box[0]


def barrier() -> None:
    if _env.backend is not None:
        # gloo has no device_ids; NCCL wants them to avoid guessing the device.
        if _env.device.type == "cuda" and _env.backend == "nccl":
            tdist.barrier(device_ids=[_env.local_rank])
        else:
            tdist.barrier()


def make_optimizer(param_groups: list[dict], zero: bool, **adamw_kwargs) -> torch.optim.Optimizer:
    """AdamW; with --zero each rank keeps only its shard of the optimizer state.

    The fused kernel makes one pass over all parameters (on CPU and CUDA) instead of a loop over
    every tensor, which for a small ViT's many small tensors was a visible share of the step
    (docs/experiments.md).
    """
    adamw_kwargs = {"fused": True, **adamw_kwargs}
    if zero and _env.backend is not None:
        from torch.distributed.optim import ZeroRedundancyOptimizer

        return ZeroRedundancyOptimizer(param_groups, optimizer_class=torch.optim.AdamW, **adamw_kwargs)
    return torch.optim.AdamW(param_groups, **adamw_kwargs)


def optimizer_state(optimizer: torch.optim.Optimizer) -> dict | None:
    """The full optimizer state on rank 0 (None elsewhere). Collective: every rank must call it.

    ZeRO shards are gathered with consolidate_state_dict, so a checkpoint always holds the
    whole state and resumes with or without --zero, on any number of processes.
    """
    if hasattr(optimizer, "consolidate_state_dict"):
        optimizer.consolidate_state_dict(to=0)
    return optimizer.state_dict() if is_main() else None
