# seed 100014; dynamic_shapes: {'x': {0: DimHint(DYNAMIC), 1: DimHint(DYNAMIC), 2: Dim('s0', min=0, max=4096)}}
# families: check, conv, if; inputs: none wrong
def forward(self, x):
    h = x
    torch._check(h.shape[2] >= 1)
    torch._check(h.shape[0] <= 52)
    h = torch.nn.functional.conv1d(h, self.w0, stride=1, padding=1)
    return h
