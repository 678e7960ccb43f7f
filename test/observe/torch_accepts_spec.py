"""torch_accepts_spec.py - does real PyTorch take the spec `shapec spec infer` writes?
Run with the chroot's torch (scripts/real-torch.sh run test/observe/torch_accepts_spec.py
SPEC.json [SPEC.json ...]): loads each spec with torch's own loader of serialized
dynamic_shapes, exports the tutorial model with it, and prints the range constraints, so
that they can be compared with shapec's report.  Not part of CTest (CI has no torch 2.x)."""
import json
import sys

import torch
from torch._export.serde.dynamic_shapes import _load_dynamic_shapes

sys.path.insert(0, "tools")
from shapec_tools.zoo import TutorialModel  # noqa: E402

torch.manual_seed(0)
m = TutorialModel().eval()
args = (torch.randn(6, 5), torch.randn(4), torch.randn(8, 4), torch.randn(32))
for path in sys.argv[1:]:
    with open(path) as f:
        spec = json.load(f)
    shapes = _load_dynamic_shapes(spec, from_dict=True)
    ep = torch.export.export(m, args, dynamic_shapes=shapes)
    print(path, "->", {str(k): str(v) for k, v in ep.range_constraints.items()})
