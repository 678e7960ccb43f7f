# seed 1039; dynamic_shapes: ({0: DimHint(AUTO), 1: DimHint(AUTO), 2: Dim('d0_2', min=0, max=1024)}, DimHint(DYNAMIC))
def forward(self, x, n):
    h = x
    h = h.transpose(0, 1)
    h = h.relu()
    h = h.flatten(1)
    return h
