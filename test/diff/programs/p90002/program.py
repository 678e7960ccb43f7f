# x: r, y: r - 1: written in y's size (x = s + 1); dynamic_shapes: {'x': {0: Dim('r', min=1, max=16)}, 'y': {0: r - 1}}
