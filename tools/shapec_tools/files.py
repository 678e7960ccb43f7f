"""File formats shared by the converter and the reference evaluator: safetensors, the
PT2 archive layout torch.export.save writes, and NumPy .npy arrays."""
import io
import json
import struct
import zipfile

import numpy as np
import torch

# torch dtype <-> serialized ScalarType code <-> safetensors dtype
DTYPES = [
    (torch.uint8, 1, "U8"), (torch.int8, 2, "I8"), (torch.int16, 3, "I16"), (torch.int32, 4, "I32"),
    (torch.int64, 5, "I64"), (torch.float16, 6, "F16"), (torch.float32, 7, "F32"), (torch.float64, 8, "F64"),
    (torch.bool, 12, "BOOL"), (torch.bfloat16, 13, "BF16"),
]
TORCH_TO_CODE = {t: c for t, c, _ in DTYPES}
CODE_TO_TORCH = {c: t for t, c, _ in DTYPES}
TORCH_TO_ST = {t: s for t, _, s in DTYPES}
ST_TO_TORCH = {s: t for t, _, s in DTYPES}


def tensor_bytes(t):
    t = t.detach().contiguous().cpu()
    if t.dtype == torch.bfloat16:  # numpy has no bfloat16: go through its bits
        return t.view(torch.int16).numpy().tobytes()
    return t.numpy().tobytes()


def tensor_from_bytes(data, dtype, shape):
    if dtype == torch.bfloat16:
        arr = np.frombuffer(data, dtype=np.int16).copy()
        return torch.from_numpy(arr).view(torch.bfloat16).reshape(shape)
    np_dtype = torch.empty((), dtype=dtype).numpy().dtype
    arr = np.frombuffer(data, dtype=np_dtype).copy()
    return torch.from_numpy(arr).reshape(shape)


def write_safetensors(path, tensors):
    """tensors: name -> tensor. Writes the header, 8-byte aligned, then the raw data."""
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        data = tensor_bytes(t)
        header[name] = {"dtype": TORCH_TO_ST[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    header["__metadata__"] = {"format": "pt", "writer": "shapec torch2shapec"}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    base = 8 + n
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        b, end = e["data_offsets"]
        out[name] = tensor_from_bytes(data[base + b:base + end], ST_TO_TORCH[e["dtype"]], e["shape"])
    return out


def tensor_meta(t):
    shape = list(t.shape)
    strides, acc = [], 1
    for s in reversed(shape):
        strides.insert(0, acc)
        acc *= s
    return {"dtype": TORCH_TO_CODE[t.dtype], "sizes": [{"as_int": int(s)} for s in shape],
            "requires_grad": False, "device": {"type": "cpu", "index": None},
            "strides": [{"as_int": s} for s in strides], "storage_offset": {"as_int": 0}, "layout": 7}


def write_pt2(path, program, weights, constants=None, root="archive", model="model"):
    """The zip torch.export.save writes: archive_format, models/<model>.json, and raw
    payloads with their PayloadConfig under data/weights and data/constants."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as z:
        z.writestr(f"{root}/archive_format", "pt2")
        z.writestr(f"{root}/archive_version", "0")
        z.writestr(f"{root}/models/{model}.json", json.dumps(program))
        for kind, tensors, prefix in (("weights", weights, "weight_"), ("constants", constants or {}, "tensor_")):
            if not tensors:
                continue
            config = {}
            for i, (fqn, t) in enumerate(tensors.items()):
                name = f"{prefix}{i}"
                config[fqn] = {"path_name": name, "is_param": kind == "weights", "use_pickle": False,
                               "tensor_meta": tensor_meta(t)}
                z.writestr(f"{root}/data/{kind}/{name}", tensor_bytes(t))
            z.writestr(f"{root}/data/{kind}/{model}_{kind}_config.json", json.dumps({"config": config}))


def read_pt2(path):
    """Returns (program dict, weights dict) from an archive."""
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        root = names[0].split("/")[0]
        models = [n for n in names if n.startswith(f"{root}/models/") and n.endswith(".json")]
        if len(models) != 1:
            raise ValueError(f"{path}: expected one model, found {len(models)}")
        model = models[0][len(f"{root}/models/"):-5]
        program = json.loads(z.read(models[0]))
        weights = {}
        for kind in ("weights", "constants"):
            cfg_name = f"{root}/data/{kind}/{model}_{kind}_config.json"
            if cfg_name not in names:
                continue
            for fqn, meta in json.loads(z.read(cfg_name))["config"].items():
                if meta.get("use_pickle"):
                    raise ValueError(f"{path}: payload {meta['path_name']} of {fqn} is pickled")
                tm = meta["tensor_meta"]
                shape = [s["as_int"] for s in tm["sizes"]]
                weights[fqn] = tensor_from_bytes(z.read(f"{root}/data/{kind}/{meta['path_name']}"),
                                                 CODE_TO_TORCH[tm["dtype"]], shape)
        return program, weights


def save_npy(path, t):
    np.save(path, t.detach().cpu().numpy(), allow_pickle=False)


def load_npy(path):
    return torch.from_numpy(np.load(path, allow_pickle=False))
