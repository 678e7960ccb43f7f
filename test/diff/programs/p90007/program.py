# r + 1 and r - 1 of a phantom Dim: x = s + 2; dynamic_shapes: {'x': {0: r + 1}, 'y': {0: r - 1}}
