"""Observations: the input shapes (and int, float, bool input values) one process saw,
for `shapec spec infer` and `shapec export --observed` (docs/observations.md).

    shapec.record_shapes("obs/", {"x": x, "lengths": lengths, "n": 5})

A folder (or a path ending in "/") means this process's rank-<RANK>.json in it, RANK
from the launcher (torchrun, srun and mpirun set it).  Each call appends one entry under
a lock and replaces the file atomically, as `shapec run --record-shapes` does."""
import fcntl
import json
import numbers
import os
import tempfile

FORMAT = "shapec-observations"
VERSION = 1
_RANK_VARS = ("RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK")
_SIZE_VARS = ("WORLD_SIZE", "SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE")


def _env_int(names):
    for n in names:
        v = os.environ.get(n, "")
        if v.isdigit():
            return int(v)
    return None


def rank_file(folder):
    """This process's file in a folder of observations: FOLDER/rank-<RANK>.json."""
    rank = _env_int(_RANK_VARS)
    if rank is None:
        raise RuntimeError(f"cannot name this process's observations in {folder!r}: no rank in the environment "
                           f"({', '.join(_RANK_VARS)}); set RANK or give a file")
    return os.path.join(folder, f"rank-{rank}.json")


def _entry(value, scalar=None):
    """A tensor's sizes as a list, a scalar's value.  scalar: force one or the other."""
    if scalar is None:
        scalar = isinstance(value, (bool, numbers.Number)) and not hasattr(value, "shape")
    if scalar:
        if hasattr(value, "item"):
            value = value.item()
        if isinstance(value, bool):
            return value
        return int(value) if float(value).is_integer() and not isinstance(value, float) else float(value)
    shape = getattr(value, "shape", value)
    return [int(s) for s in shape]


def _render(doc):
    lines = ["{"]
    for k, v in doc.items():
        if k != "calls":
            lines.append(f"  {json.dumps(k)}: {json.dumps(v, separators=(',', ':'))},")
    calls = [json.dumps(c, separators=(",", ":")) for c in doc["calls"]]
    lines.append('  "calls": [' + ",".join("\n    " + c for c in calls) + "\n  ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def record_shapes(path, inputs, model_sha256=None, scalars=()):
    """Appends one call to the observations at path and returns the file written.

    inputs: {name: tensor, array, list of sizes, or an int/float/bool value}.  scalars:
    names whose 0-d array is a scalar input's value rather than a 0-d tensor."""
    if os.path.isdir(path) or path.endswith("/"):
        os.makedirs(path, exist_ok=True)
        path = rank_file(path)
    folder = os.path.dirname(os.path.abspath(path))
    call = {name: _entry(v, True if name in scalars else None) for name, v in inputs.items()}
    lock_path = os.path.join(folder, "." + os.path.basename(path) + ".lock")
    with open(lock_path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if os.path.exists(path):
                with open(path) as f:
                    doc = json.load(f)
                if doc.get("format", FORMAT) != FORMAT or not isinstance(doc.get("calls"), list):
                    raise ValueError(f"{path}: not an observations file")
                if model_sha256 and doc.get("model_sha256") not in (None, model_sha256):
                    raise ValueError(f"{path}: holds observations of another model (model_sha256 "
                                     f"{doc['model_sha256'][:12]}..., this one is {model_sha256[:12]}...)")
            else:
                doc = {"format": FORMAT, "version": VERSION}
                rank, size = _env_int(_RANK_VARS), _env_int(_SIZE_VARS)
                if rank is not None:
                    doc["rank"] = rank
                    if size is not None and size > rank:
                        doc["world_size"] = size
                doc["calls"] = []
            if model_sha256 and "model_sha256" not in doc:
                calls = doc.pop("calls")
                doc["model_sha256"] = model_sha256
                doc["calls"] = calls
            doc["calls"].append(call)
            fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".")
            umask = os.umask(0)
            os.umask(umask)
            os.fchmod(fd, 0o666 & ~umask)  # as any file the process writes, not mkstemp's 0600
            try:
                with os.fdopen(fd, "w") as f:
                    f.write(_render(doc))
                os.replace(tmp, path)
            except BaseException:
                os.unlink(tmp)
                raise
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return path
