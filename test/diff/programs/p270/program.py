# seed 270; dynamic_shapes: (None,)
def forward(self, x):
    h = x
    h = h.relu()
    h = h.narrow(-1, 0, 2)
    h = h.relu()
    h = h.unsqueeze(0)
    return h
