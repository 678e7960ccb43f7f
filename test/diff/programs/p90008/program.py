# 2*r and r - 1: x = 2*s + 2; dynamic_shapes: {'x': {0: 2*r}, 'y': {0: r - 1}}
