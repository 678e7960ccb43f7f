#!/usr/bin/python3
"""Transport only: every model.so under a bundle folder rewritten as its four byte planes
(byte 0 of every 4-byte word, then byte 1, ...), and back.  A library is mostly float32
weights; xz packs their sign-and-exponent bytes far better when they are not interleaved
with the mantissas (resnet18's bundle: 43.3 MB -> 39.8 MB), which is what lets it and the
repository fit the device tool's 64 MiB (docs/cuda.md, "GPU bundles").

usage: byte_planes.py pack DIR      (model.so -> model.so.planes: 8-byte length, then the planes)
       byte_planes.py unpack DIR    (the reverse; the library comes back byte for byte)"""
import os
import sys

import numpy as np


def pack(path):
    data = np.fromfile(path, np.uint8)
    size = len(data)
    words = np.concatenate([data, np.zeros(-size % 4, np.uint8)]).reshape(-1, 4)
    with open(path + ".planes", "wb") as f:
        f.write(size.to_bytes(8, "little"))
        f.write(words.T.tobytes())
    os.remove(path)


def unpack(path):
    with open(path, "rb") as f:
        size = int.from_bytes(f.read(8), "little")
        planes = np.frombuffer(f.read(), np.uint8)
    planes.reshape(4, -1).T.reshape(-1)[:size].tofile(path[:-len(".planes")])
    os.remove(path)


def main():
    mode, root = sys.argv[1], sys.argv[2]
    for folder, _, files in os.walk(root):
        for name in files:
            if mode == "pack" and name == "model.so":
                pack(os.path.join(folder, name))
            elif mode == "unpack" and name == "model.so.planes":
                unpack(os.path.join(folder, name))


if __name__ == "__main__":
    main()
