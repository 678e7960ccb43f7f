# a phantom Dim's 2*r + 1; dynamic_shapes: {'x': {0: 2*r + 1}}
