"""gen_fixtures.py - torch.save files written by real torch for the unit tests of the
pickle reader (test/unit/test_pt2.c): known values in every shape the reader must handle.

    scripts/real-torch.sh --torch 2.14 run test/real/gen_fixtures.py"""
import io
import os
import pickle
import zipfile

import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
os.makedirs(OUT, exist_ok=True)

base = torch.arange(12, dtype=torch.float32)
state = {
    "a": base.view(3, 4),                                   # contiguous
    "t": base.view(3, 4).t(),                               # strides (1, 4), shares a's storage
    "off": base[2:8],                                       # storage offset 2
    "i": torch.tensor([[1, -2], [3, 2**40]], dtype=torch.int64),
    "b": torch.tensor([True, False, True]),
    "d": torch.tensor([0.5, -1.25], dtype=torch.float64),
    "p": torch.nn.Parameter(torch.tensor([7.0, 8.0])),
    "e": torch.zeros(0, 3),                                 # an empty tensor
}
torch.save(state, os.path.join(OUT, "state_dict.pt"))
torch.save(torch.tensor([[1.5, 2.5]]), os.path.join(OUT, "lone_tensor.pt"))


class Evil:
    def __reduce__(self):
        return (eval, ("1+1",))


# a torch.save zip whose data.pkl calls eval: the reader must refuse it by name
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
    z.writestr("archive/data.pkl", pickle.dumps({"x": Evil()}, protocol=2))
    z.writestr("archive/byteorder", "little")
open(os.path.join(OUT, "evil.pt"), "wb").write(buf.getvalue())
print("wrote", sorted(os.listdir(OUT)))
