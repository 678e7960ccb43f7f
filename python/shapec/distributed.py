"""distributed.py - one spec and one library for every rank of a torch.distributed job.

The ranks of a job already share a process group: each rank's observed input shapes are
gathered over it (all_gather_object), merged in rank order exactly as `shapec spec infer`
merges rank files (automatic dynamic: a dim that changed on any rank is dynamic), the
model is exported once, on the group's first rank, and the library's bytes go to the other
ranks over the same group (or only its path, when the caller says the file system is
shared), so that every rank loads byte-identical libraries.  No shared file system, no
polling, no shapec command on the other ranks.

    import shapec.distributed
    model = shapec.distributed.export_agreed("model.pt2", calls, "out/", group=None)

`calls` is this rank's observed calls: a list of {input name: tensor, array, list of
sizes, or a scalar's value}, or the path of an observations file (docs/observations.md).
The file flow (`shapec export --observed DIR`) stays for jobs without torch."""
import json
import os
import tempfile

from . import observations as _observations
from .cli import ExportError, executable
from .model import load

_FILES = ("model.so", "model.h", "constraints.json", "spec.json")


def _document(calls, rank, world_size):
    """This rank's observations as an observations document."""
    if isinstance(calls, (str, os.PathLike)):
        with open(calls) as f:
            doc = json.load(f)
        if doc.get("format") != _observations.FORMAT or not isinstance(doc.get("calls"), list):
            raise ValueError(f"{calls}: not an observations file")
    else:
        doc = {"format": _observations.FORMAT, "version": _observations.VERSION,
               "calls": [{name: _observations._entry(v) for name, v in call.items()} for call in calls]}
    doc = dict(doc)
    doc["rank"], doc["world_size"] = rank, world_size  # the group's, whatever the file said
    return doc


def _export_on_first(model, docs, ranges, options):
    """On the group's first rank: every rank's observations in a folder, one export with
    --observed (merged in rank order, as spec infer does); the files' bytes, or the error."""
    import subprocess

    with tempfile.TemporaryDirectory(prefix="shapec-agree-") as tmp:
        obs = os.path.join(tmp, "observations")
        os.makedirs(obs)
        for doc in docs:
            with open(os.path.join(obs, f"rank-{doc['rank']}.json"), "w") as f:
                f.write(_observations._render(doc))
        out = os.path.join(tmp, "out")
        args = [executable(), "export", os.fspath(model), "--observed", obs, "--world-size", str(len(docs)), "-o", out,
                "-q", "--diagnostics-format", "json", *options]
        if ranges:
            args.append("--ranges")
        r = subprocess.run(args, capture_output=True, text=True)
        if r.returncode != 0:
            start = r.stderr.find("{")
            try:
                diagnostics = json.loads(r.stderr[start:]).get("diagnostics", []) if start >= 0 else []
            except ValueError:
                diagnostics = []
            message = "; ".join(d.get("message", "") for d in diagnostics) or r.stderr.strip()[-500:]
            return {"error": message, "code": r.returncode, "diagnostics": diagnostics}
        files = {}
        for name in _FILES:
            path = os.path.join(out, name)
            if os.path.exists(path):
                with open(path, "rb") as f:
                    files[name] = f.read()
        return {"files": files}


def _write_files(out_dir, files):
    os.makedirs(out_dir, exist_ok=True)
    for name, data in files.items():
        fd, tmp = tempfile.mkstemp(dir=out_dir, prefix="." + name + ".")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o755 if name.endswith(".so") else 0o644)
        os.replace(tmp, os.path.join(out_dir, name))


def export_agreed(model, calls, out_dir, *, group=None, ranges=False, shared_fs=False, options=()):
    """Every rank of `group` (None: the default group) calls this with its own observed
    calls; each gets the same library, exported once on the group's first rank from the
    spec all ranks' observations agree on, loaded (a Model).  out_dir is this rank's
    folder for the files (with shared_fs=True, the first rank's folder, which every rank
    then loads: give all ranks the same path).  `ranges`: named Dims with the observed
    ranges instead of AUTO; `options`: more `shapec export` arguments (["--cpu",
    "x86-64-v3"]).  A refused export raises ExportError on every rank."""
    import torch.distributed as dist

    rank, world = dist.get_rank(group), dist.get_world_size(group)
    doc = _document(calls, rank, world)
    docs = [None] * world
    dist.all_gather_object(docs, doc, group=group)
    result = [None]
    if rank == 0:
        result[0] = _export_on_first(model, docs, ranges, list(options))
        if shared_fs and "files" in result[0]:
            _write_files(out_dir, result[0]["files"])
            result[0] = {"path": os.path.abspath(out_dir)}
    if group is None:
        first = 0
    else:  # torch 2 spells it get_global_rank; 1.13 only has the private one
        get = getattr(dist, "get_global_rank", None) or dist.distributed_c10d._get_global_rank
        first = get(group, 0)
    dist.broadcast_object_list(result, src=first, group=group)
    outcome = result[0]
    if "error" in outcome:
        raise ExportError(outcome["error"], outcome["code"], outcome["diagnostics"])
    if "path" in outcome:
        return load(os.path.join(outcome["path"], "model.so"))
    _write_files(out_dir, outcome["files"])
    return load(os.path.join(out_dir, "model.so"))
