"""cli.py - `shapec export` and `shapec spec infer` from Python: the installed command line
driven with the same options, its diagnostics raised as Python exceptions."""
import json
import os
import shutil
import subprocess
import tempfile

from .model import ShapecError, load


class ExportError(ShapecError):
    """shapec refused the model or the spec.  `diagnostics` holds each diagnostic as the
    command line's --diagnostics-format json gives it (code, name, severity, location with
    file, json_path, line and column, message, fix); `code` is the exit status (1: the
    model or spec is rejected, 2: a usage error, 3: a file, 4: internal)."""

    def __init__(self, message, code, diagnostics):
        super().__init__(message, code)
        self.diagnostics = diagnostics


def executable():
    """The shapec command this package drives: $SHAPEC, else `shapec` on PATH."""
    path = os.environ.get("SHAPEC") or shutil.which("shapec")
    if not path:
        raise ShapecError("no shapec command: install shapec (it puts `shapec` on PATH) or set SHAPEC to its path", 2)
    return path


def _run(args):
    r = subprocess.run([executable(), *args, "--diagnostics-format", "json"], capture_output=True, text=True)
    diagnostics = []
    start = r.stderr.find("{")
    if start >= 0:
        try:
            diagnostics = json.loads(r.stderr[start:]).get("diagnostics", [])
        except ValueError:
            diagnostics = []
    return r, diagnostics


def _fail(r, diagnostics, what):
    errors = [d for d in diagnostics if d.get("severity") == "error"] or diagnostics
    if errors:
        lines = []
        for d in errors:
            loc = d.get("location", {})
            where = ":".join(str(loc[k]) for k in ("file", "line", "column") if k in loc)
            lines.append(f"{where}: error[{d.get('code')}]: {d.get('message')}"
                         + (f"\n  at: {loc['json_path']}" if loc.get("json_path") else "")
                         + (f"\n  fix: {d['fix']}" if d.get("fix") else ""))
        message = "\n".join(lines)
    else:
        message = (r.stderr.strip() or r.stdout.strip() or f"{what} failed").splitlines()[-1]
    raise ExportError(message, r.returncode, diagnostics)


def export(model, dynamic=None, out=None, *, weights=None, target=None, cpu=None, name=None, metadata=None,
           prefer_deferred_runtime_asserts=False, load_library=True):
    """shapec export MODEL [--dynamic SPEC] -o OUT: the library, loaded (a Model), or its
    path with load_library=False.  `dynamic` is a spec file's path or the spec itself (a
    dict as torch serializes dynamic_shapes, written to a temporary file); `metadata` a
    dict of KEY: VALUE.  OUT defaults to a new temporary folder.  A rejected model or spec
    raises ExportError with torch's words and the diagnostics."""
    out = out or tempfile.mkdtemp(prefix="shapec-export-")
    args = ["export", os.fspath(model), "-o", os.fspath(out), "-q"]
    spec_file = None
    try:
        if isinstance(dynamic, dict):
            fd, spec_file = tempfile.mkstemp(prefix="shapec-spec-", suffix=".json")
            with os.fdopen(fd, "w") as f:
                json.dump(dynamic, f)
            args += ["--dynamic", spec_file]
        elif dynamic is not None:
            args += ["--dynamic", os.fspath(dynamic)]
        for flag, value in (("--weights", weights), ("--target", target), ("--cpu", cpu), ("--name", name)):
            if value is not None:
                args += [flag, os.fspath(value)]
        for key, value in (metadata or {}).items():
            args += ["--metadata", f"{key}={value}"]
        if prefer_deferred_runtime_asserts:
            args.append("--prefer-deferred-runtime-asserts")
        r, diagnostics = _run(args)
    finally:
        if spec_file:
            os.unlink(spec_file)
    if r.returncode != 0:
        _fail(r, diagnostics, "shapec export")
    so = os.path.join(out, "model.so")
    return load(so) if load_library else so


def spec_infer(*observations, model=None, ranges=False):
    """shapec spec infer OBS... [--model MODEL] [--ranges]: the spec (a dict) that the
    observed shapes of every rank agree on, merged in rank order."""
    if not observations:
        raise TypeError("spec_infer needs at least one observations file or folder")
    args = ["spec", "infer", *map(os.fspath, observations)]
    if model is not None:
        args += ["--model", os.fspath(model)]
    if ranges:
        args.append("--ranges")
    r, diagnostics = _run(args)
    if r.returncode != 0:
        _fail(r, diagnostics, "shapec spec infer")
    return json.loads(r.stdout)
