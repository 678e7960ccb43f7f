# a guard on a phantom Dim's r + 1 narrows r silently; dynamic_shapes: {'x': {0: r + 1}}
