"""Where speech sits in a shot: shared by the album planner (which sizes shots) and the renderer."""

LINE_START_S = 0.3  # lead-in before a shot's first line
LINE_GAP_S = 0.25  # pause between lines
