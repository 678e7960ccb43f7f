# seed 106; dynamic_shapes: ({0: Dim('d0_0', max=1024), 2: DimHint(STATIC)},)
def forward(self, x):
    h = x
    h = h.relu()
    h = h.reshape(-1)
    h = h[:52]
    h = h * 2
    h = h.unsqueeze(0)
    return h
