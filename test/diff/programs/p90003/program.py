# a phantom Dim's r + 1 stays r + 1, r from 2; dynamic_shapes: {'x': {0: r + 1}}
