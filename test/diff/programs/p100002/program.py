# seed 100002; dynamic_shapes: {'x': {0: DimHint(AUTO)}, 'k': None}
# families: cat, check, if, slice, split; inputs: none
def forward(self, x, *, k):
    x = x + k
    h = x
    h = h[:5]
    h = h[-4:]
    return h
