# seed 100017; dynamic_shapes: {'x': {0: Dim('d0', min=0)}, 'n': DimHint(DYNAMIC)}
# families: index, int, pad; inputs: none
def forward(self, x, n):
    h = x
    h = h * n + n
    h = torch.nn.functional.pad(h, (0, 0))
    return h
