# seed 100030; dynamic_shapes: {'x': {0: r0 - 1}}
# families: check, conv, index; inputs: none
def forward(self, x):
    h = x
    h = h.flip(0)
    torch._check(h.shape[0] >= 8)
    h = h.reshape(1, 1, -1)
    h = torch.nn.functional.conv1d(h, self.w0, stride=2, padding=0)
    return h
