"""gen_deferred.py - torch's answers for --prefer-deferred-runtime-asserts (issue 14):
programs whose guards on a named Dim torch refuses by default and, with
prefer_deferred_runtime_asserts_over_guards=True, exports as runtime asserts.

    scripts/real-torch.sh --torch 2.14 run test/real/deferred/gen_deferred.py

Writes test/real/deferred/<case>/: auto.pt2 (the program exported with Dim.AUTO, which
shapec re-applies the spec to), spec.json (torch's serialized spec with the named Dim),
torch.json (torch's verdict without the flag, and with it: range_constraints and the
module's verdict on each probe size)."""
import json
import os
import sys

import torch
from torch.export import Dim, export

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import gen_corpus  # noqa: E402


class EvenOnly(torch.nn.Module):
    def forward(self, x):
        if x.shape[0] % 2 == 0:
            return x * 2
        return x + 1


class NotThree(torch.nn.Module):
    def forward(self, x):
        torch._check(x.shape[0] != 3)
        return x * 3


class AboveFour(torch.nn.Module):  # a range guard: a violation with or without the flag
    def forward(self, x):
        if x.shape[0] > 4:
            return x * 2
        return x + 1


def verdicts(module, sizes):
    out = {}
    for v in sizes:
        try:
            with torch.no_grad():
                module(torch.randn(v))
            out[str(v)] = "ok"
        except Exception as e:  # noqa: BLE001 - torch's verdict
            out[str(v)] = str(e).splitlines()[0]
    return out


def main():
    sizes = [0, 1, 2, 3, 4, 5, 6, 7, 8, 64, 65]
    for name, mod in [("even_only", EvenOnly()), ("not_three", NotThree()), ("above_four", AboveFour())]:
        d = os.path.join(HERE, name)
        os.makedirs(d, exist_ok=True)
        x = torch.randn(6)
        torch.export.save(export(mod, (x,), dynamic_shapes={"x": {0: Dim.AUTO}}), os.path.join(d, "auto.pt2"))
        spec = {"x": {0: Dim("dx", max=64)}}
        gen_corpus.write_spec(d, spec, (x,), {})
        answers = {"torch": torch.__version__}
        for flag in (False, True):
            key = "deferred" if flag else "default"
            try:
                ep = export(mod, (x,), dynamic_shapes={"x": {0: Dim("dx", max=64)}},
                            prefer_deferred_runtime_asserts_over_guards=flag)
                answers[key] = {"export": "ok", "range_constraints": gen_corpus.range_constraints(ep),
                                "verdicts": verdicts(ep.module(), sizes)}
            except Exception as e:  # noqa: BLE001 - torch's verdict
                answers[key] = {"export": str(e).splitlines()[0]}
        with open(os.path.join(d, "torch.json"), "w") as f:
            json.dump(answers, f, indent=1, sort_keys=True)
            f.write("\n")
        print(name, {k: v["export"] for k, v in answers.items() if isinstance(v, dict)})


if __name__ == "__main__":
    main()
