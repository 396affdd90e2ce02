"""A day diary: one written entry per day says where the diarist spent it; questions ask where."""
