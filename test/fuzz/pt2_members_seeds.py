#!/usr/bin/python3
"""Seeds for fuzz_pt2_members: the members of the real-torch corpus's archives, in the
field format of test/fuzz/fuzz_members.h.

Each torch 2.14 archive gives its model JSON, weights and constants configs and raw
payloads (layout 2); each torch 2.6 archive gives its program and the data.pkl and storages
of its torch.save files, once in its own layout (0), once as torch 2.8 writes them (1) and
once as pickled payloads of a 2.9+ archive (2); each torch.save fixture of test/real
becomes the weights of a 2.6 program.  Seeds over max_len bytes are left out.

usage: pt2_members_seeds.py OUTDIR MAX_LEN ARCHIVE... [--pickles FILE...]"""
import io
import os
import struct
import sys
import zipfile

MODEL, W_PKL, W_CONFIG, W_STORAGE, C_PKL, C_CONFIG, C_STORAGE, EXTRA = range(8)
FLAG_W_PICKLED, FLAG_C_PICKLED = 64, 128
PICKLED_INDEX = 200


def field(kind, index, data):
    return bytes([kind, index]) + struct.pack("<I", len(data))[:3] + data


def encode(header, fields):
    return bytes(header) + b"".join(field(*f) for f in fields)


def torch_save_fields(data, pkl_kind, storage_kind):
    """data.pkl and the storages data/<key> of a torch.save file (keys that are 0..255)."""
    z = zipfile.ZipFile(io.BytesIO(data))
    out = []
    for name in z.namelist():
        if name.endswith("data.pkl"):
            out.append((pkl_kind, 0, z.read(name)))
        else:
            head, _, key = name.rpartition("/")
            if head.endswith("data") and key.isdigit() and int(key) < 256:
                out.append((storage_kind, int(key), z.read(name)))
    return out


def seeds_of(path):
    """(name, header, fields) for each seed of one archive."""
    z = zipfile.ZipFile(path)
    names = z.namelist()
    if "serialized_exported_program.json" in names:  # torch 2.1-2.7
        fields = [(MODEL, 0, z.read("serialized_exported_program.json"))]
        for member, pkl, storage in (("serialized_state_dict.pt", W_PKL, W_STORAGE),
                                     ("serialized_constants.pt", C_PKL, C_STORAGE)):
            if member in names:
                fields += torch_save_fields(z.read(member), pkl, storage)
        pickled = b'{"config": {"state_dict": {"path_name": "weight_%d", "use_pickle": true}}}' % PICKLED_INDEX
        constants = b'{"config": {"constants": {"path_name": "tensor_%d", "use_pickle": true}}}' % PICKLED_INDEX
        return [("legacy", [0, 0, 0, 0], fields),
                ("2.8", [1, 0, 0, 0], fields),
                ("pickled", [2, FLAG_W_PICKLED | FLAG_C_PICKLED, PICKLED_INDEX, 0],
                 fields + [(W_CONFIG, 0, pickled), (C_CONFIG, 0, constants)])]
    fields = []
    for name in names:
        parts = name.split("/")
        tail = "/".join(parts[1:])
        if tail.startswith("models/") and tail.endswith(".json"):
            fields.append((MODEL, 0, z.read(name)))
        elif tail.endswith("_weights_config.json"):
            fields.append((W_CONFIG, 0, z.read(name)))
        elif tail.endswith("_constants_config.json"):
            fields.append((C_CONFIG, 0, z.read(name)))
        elif tail.startswith("data/weights/weight_") and tail[20:].isdigit() and int(tail[20:]) < 256:
            fields.append((W_STORAGE, int(tail[20:]), z.read(name)))
        elif tail.startswith("data/constants/tensor_") and tail[22:].isdigit() and int(tail[22:]) < 256:
            fields.append((C_STORAGE, int(tail[22:]), z.read(name)))
    return [("pt2", [2, 0, 0, 0], fields)] if fields else []


def main():
    out, max_len = sys.argv[1], int(sys.argv[2])
    args = sys.argv[3:]
    pickles = args[args.index("--pickles") + 1:] if "--pickles" in args else []
    archives = args[:args.index("--pickles")] if "--pickles" in args else args
    os.makedirs(out, exist_ok=True)
    written = 0
    program = None  # a torch 2.6 program for the torch.save fixtures
    for path in archives:
        try:
            seeds = seeds_of(path)
        except (zipfile.BadZipFile, OSError, KeyError):
            continue
        case = os.path.basename(os.path.dirname(path))
        version = os.path.basename(os.path.dirname(os.path.dirname(path)))
        for name, header, fields in seeds:
            if name == "legacy" and program is None:
                program = [f for f in fields if f[0] == MODEL]
            data = encode(header, fields)
            if len(data) <= max_len:
                stem = os.path.basename(path).split(".")[0]
                with open(os.path.join(out, f"seed-{version}-{case}-{stem}-{name}"), "wb") as f:
                    f.write(data)
                written += 1
    for path in pickles:
        try:
            with open(path, "rb") as f:
                fields = (program or []) + torch_save_fields(f.read(), W_PKL, W_STORAGE)
        except (zipfile.BadZipFile, OSError):
            continue
        with open(os.path.join(out, "seed-fixture-" + os.path.basename(path)), "wb") as f:
            f.write(encode([0, 0, 0, 0], fields))
        written += 1
    print(f"pt2_members: {written} seeds")


main()
