# a phantom Dim's r - 1 with a sample of 1: specialized, no fix; dynamic_shapes: {'x': {0: r - 1}}
