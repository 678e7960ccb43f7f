"""dump_aten_ops.py - the operator sets of the torch it runs under, for shapec's op coverage
(docs/ops.md) and SC0307's hint (ir/aten_decomposable.def), written by scripts/gen_ops_doc.py:

    scripts/real-torch.sh --torch 2.14 run tools/dump_aten_ops.py > tools/aten_ops_2.14.json

Prints JSON: "core", every overload tagged torch.Tag.core (the core ATen set that
run_decompositions() lowers to), and "decomposed", every overload that
run_decompositions()'s default table rewrites; both as the serialized targets
("torch.ops.aten.add.Tensor")."""
import json

import torch


def target(op):
    name = op.name()  # "aten::add.Tensor"
    ns, rest = name.split("::", 1)
    if "." not in rest:
        rest += ".default"
    return f"torch.ops.{ns}.{rest}"


core, decomposed = set(), set()
for packet_name in dir(torch.ops.aten):
    packet = getattr(torch.ops.aten, packet_name, None)
    if not hasattr(packet, "overloads"):
        continue
    for o in packet.overloads():
        op = getattr(packet, o)
        if torch.Tag.core in getattr(op, "tags", ()):
            core.add(target(op))
for op in torch.export.default_decompositions().keys():
    if hasattr(op, "name"):
        decomposed.add(target(op))
print(json.dumps({"torch": torch.__version__, "core": sorted(core), "decomposed": sorted(decomposed)}, indent=1))
